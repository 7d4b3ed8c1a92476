#include "harness/history_recorder.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace locksmith {

Result<std::unique_ptr<HistoryRecorder>> HistoryRecorder::Open(
    const std::string& path, std::chrono::steady_clock::time_point start) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_APPEND, 0644);
  if (fd < 0) return Error{"cannot create " + path + ": " + std::strerror(errno)};
  return std::unique_ptr<HistoryRecorder>(new HistoryRecorder(fd, path, start));
}

HistoryRecorder::~HistoryRecorder() { ::close(fd_); }

std::string HistoryRecorder::Append(const std::string& line) {
  const char* p = line.data();
  size_t left = line.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return "cannot write " + path_ + ": " + std::strerror(n < 0 ? errno : ENOSPC);
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  return "";
}

Op HistoryRecorder::Record(Op op) {
  bool failed_now = false;
  {
    // The index and the time are taken under one lock so both grow together.
    std::lock_guard lock(mu_);
    op.index = next_index_++;
    op.time = std::chrono::duration_cast<std::chrono::nanoseconds>(
                  std::chrono::steady_clock::now() - start_)
                  .count();
    if (write_error_.empty()) {
      write_error_ = Append(OpToJsonLine(op) + "\n");
      failed_now = !write_error_.empty();
    }
  }
  if (failed_now) {
    std::lock_guard lock(callback_mu_);
    if (on_write_error_) on_write_error_();
  }
  return op;
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
