// MemoryRecorder: an OpRecorder that keeps the history in memory, for tests.
// Thread-safe.
#pragma once

#include <chrono>
#include <mutex>

#include "checker/op_recorder.h"

namespace locksmith::testing {

class MemoryRecorder : public OpRecorder {
 public:
  Op Record(Op op) override {
    std::lock_guard lock(mu_);
    op.index = static_cast<int64_t>(history_.size());
    op.time = std::chrono::duration_cast<std::chrono::nanoseconds>(
                  std::chrono::steady_clock::now() - start_)
                  .count();
    history_.push_back(op);
    return op;
  }
  History history() const {
    std::lock_guard lock(mu_);
    return history_;
  }

 private:
  mutable std::mutex mu_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  History history_;
};

}  // namespace locksmith::testing
