#include "history/prefetch_op_stream.h"

#include <utility>

namespace locksmith {

void PrefetchOpStream::ReadAhead() {
  for (;;) {
    Batch batch;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!spent_.empty()) {
        batch.ops = std::move(spent_.back());
        spent_.pop_back();
      }
    }
    batch.ops.resize(kBatchOps);
    size_t n = 0;
    while (n < kBatchOps) {
      auto more = inner_.Next(&batch.ops[n]);
      if (!more) batch.error = more.error();
      if (!more || !*more) {
        batch.end = true;
        break;
      }
      ++n;
    }
    batch.ops.resize(n);
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [&] { return stop_ || ready_.size() < kDepth; });
    if (stop_) return;
    const bool end = batch.end;
    ready_.push_back(std::move(batch));
    changed_.notify_all();
    if (end) return;
  }
}

Result<bool> PrefetchOpStream::Next(Op* op) {
  for (;;) {
    if (next_in_current_ < current_.ops.size()) {
      std::swap(*op, current_.ops[next_in_current_++]);
      return true;
    }
    if (current_.end) {
      if (!current_.error.empty()) return Error{current_.error};
      return false;
    }
    if (!started_) {
      started_ = true;
      reader_ = std::thread([this] { ReadAhead(); });
    }
    std::unique_lock<std::mutex> lock(mu_);
    if (spent_.size() < kDepth) spent_.push_back(std::move(current_.ops));
    changed_.wait(lock, [&] { return !ready_.empty(); });
    current_ = std::move(ready_.front());
    ready_.pop_front();
    next_in_current_ = 0;
    changed_.notify_all();
  }
}

void PrefetchOpStream::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  changed_.notify_all();
  if (reader_.joinable()) reader_.join();
  ready_.clear();
  spent_.clear();
  stop_ = false;
  started_ = false;
  current_ = Batch();
  next_in_current_ = 0;
}

Status PrefetchOpStream::Rewind() {
  Stop();
  return inner_.Rewind();
}

}  // namespace locksmith
