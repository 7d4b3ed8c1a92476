#include "harness/history_recorder.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <utility>

#include "harness/secret_redaction.h"

namespace locksmith {

Result<std::unique_ptr<HistoryRecorder>> HistoryRecorder::Open(
    const std::string& path, std::chrono::steady_clock::time_point start) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_APPEND, 0644);
  if (fd < 0) return Error{"cannot create " + path + ": " + std::strerror(errno)};
  return std::unique_ptr<HistoryRecorder>(new HistoryRecorder(fd, path, start));
}

HistoryRecorder::HistoryRecorder(int fd, std::string path,
                                 std::chrono::steady_clock::time_point start)
    : fd_(fd), path_(std::move(path)), start_(start) {
  writer_ = std::thread([this] { WriterLoop(); });
}

HistoryRecorder::~HistoryRecorder() {
  {
    std::lock_guard lock(mu_);
    closing_ = true;
  }
  writer_wake_.notify_one();
  writer_.join();
  ::close(fd_);
  extent_->Seal();
}

std::string HistoryRecorder::Append(std::string_view bytes) {
  const char* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      // Nothing follows a failed write: a reader has every byte there is.
      extent_->Publish(bytes_written_);
      extent_->Seal();
      return "cannot write " + path_ + ": " + std::strerror(n < 0 ? errno : ENOSPC);
    }
    p += n;
    left -= static_cast<size_t>(n);
    bytes_written_ += static_cast<uint64_t>(n);
  }
  extent_->Publish(bytes_written_);
  return "";
}

std::string HistoryRecorder::Write(const std::vector<std::vector<Op>>& batches,
                                   const std::optional<HistoryClosing>& closing) {
  out_.clear();
  // The magic goes with the first write, so a file that cannot take it
  // fails as any write does (through write_error and the callback).
  if (!wrote_magic_) out_.append(kHistoryLogMagic);
  wrote_magic_ = true;
  for (const auto& batch : batches) {
    for (const Op& op : batch) {
      // An adapter's error text may quote a secret it was handed.
      const std::optional<Op> redacted = RedactedOp(op);
      encoder_.Encode(redacted ? *redacted : op, &out_);
    }
  }
  if (closing) encoder_.EncodeClosing(*closing, &out_);
  if (out_.empty()) return "";
  std::string error = Append(out_);
  // Nothing follows the closing record: a reader need wait for no more.
  if (closing && error.empty()) extent_->Seal();
  // A batch of a moment of full speed is megabytes: keep no such buffer.
  if (out_.capacity() > (size_t{4} << 20)) std::string().swap(out_);
  return error;
}

void HistoryRecorder::WriterLoop() {
  std::vector<std::vector<Op>> taken;
  for (;;) {
    int64_t through = 0;
    bool closing = false;
    bool failed_before = false;
    std::optional<HistoryClosing> close_record;
    {
      std::unique_lock lock(mu_);
      writer_wake_.wait_for(lock, kFlushInterval,
                            [&] { return !full_.empty() || flush_wanted_ || closing_; });
      for (auto& batch : full_) taken.push_back(std::move(batch));
      full_.clear();
      // Whatever is pending goes too: a killed run loses at most one interval.
      if (!pending_.empty()) taken.push_back(std::exchange(pending_, {}));
      // Taken with the batches: every op recorded before Close is in them.
      close_record = std::exchange(close_record_, std::nullopt);
      flush_wanted_ = false;
      through = next_index_;
      closing = closing_;
      failed_before = !write_error_.empty();
    }
    queue_space_.notify_all();
    std::string error;
    if (!failed_before && (!taken.empty() || !wrote_magic_ || close_record)) {
      error = Write(taken, close_record);
    }
    taken.clear();
    bool failed_now = false;
    if (!error.empty()) {
      std::lock_guard lock(mu_);
      failed_now = write_error_.empty();
      if (failed_now) write_error_ = error;
    }
    if (failed_now) {
      std::lock_guard lock(callback_mu_);
      if (on_write_error_) on_write_error_();
    }
    {
      // Only now, after the callback: whoever flushed learns of the failure
      // once it has been told.
      std::lock_guard lock(mu_);
      written_through_ = through;
      first_write_done_ = true;
      if (close_record) close_written_ = true;
    }
    queue_space_.notify_all();
    if (closing) return;
  }
}

OpStamp HistoryRecorder::Record(Op op) {
  std::unique_lock lock(mu_);
  // A writer that fell behind holds the producers here: memory stays bounded.
  queue_space_.wait(lock, [&] {
    return full_.size() < kMaxQueuedBatches || !write_error_.empty() || closing_;
  });
  // The index and the time are taken under one lock so both grow together,
  // and the file's order is the index's.
  op.index = next_index_++;
  op.time = std::chrono::duration_cast<std::chrono::nanoseconds>(
                std::chrono::steady_clock::now() - start_)
                .count();
  const OpStamp stamp{op.index, op.time};
  if (write_error_.empty() && !closed_) {
    if (pending_.empty()) pending_.reserve(kBatchOps);
    pending_.push_back(std::move(op));
    if (pending_.size() >= kBatchOps) {
      full_.push_back(std::exchange(pending_, {}));
      writer_wake_.notify_one();
    }
  }
  return stamp;
}

std::string HistoryRecorder::Flush() {
  std::unique_lock lock(mu_);
  const int64_t target = next_index_;
  flush_wanted_ = true;
  writer_wake_.notify_one();
  queue_space_.wait(lock, [&] { return written_through_ >= target && first_write_done_; });
  return write_error_;
}

std::string HistoryRecorder::Close(const std::string& ended, const std::string& detail) {
  {
    std::lock_guard lock(mu_);
    if (closed_) return write_error_;
    closed_ = true;
    close_record_ = HistoryClosing{.ended = ended, .detail = detail};
  }
  Flush();
  // The writer may have taken its batches just before the closing record
  // was set, and that write satisfies the flush: wait for the record itself,
  // so that whoever reads the log after Close finds it whole.
  std::unique_lock lock(mu_);
  flush_wanted_ = true;
  writer_wake_.notify_one();
  queue_space_.wait(lock, [&] { return close_written_ || !write_error_.empty(); });
  return write_error_;
}

int64_t HistoryRecorder::count() const {
  std::lock_guard lock(mu_);
  return next_index_;
}

std::string HistoryRecorder::write_error() const {
  std::lock_guard lock(mu_);
  return write_error_;
}

void HistoryRecorder::OnWriteError(std::function<void()> callback) {
  std::lock_guard lock(callback_mu_);
  on_write_error_ = std::move(callback);
}

}  // namespace locksmith
