// MemoryRecorder: an OpRecorder that keeps the history in memory, for tests.
// Op times are nanoseconds since construction on the steady clock, or on the
// clock `now` reads (a test's fake clock). Thread-safe.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <utility>

#include "history/op_recorder.h"

namespace locksmith::testing {

class MemoryRecorder : public OpRecorder {
 public:
  using Now = std::function<std::chrono::steady_clock::time_point()>;

  explicit MemoryRecorder(Now now = std::chrono::steady_clock::now)
      : now_(std::move(now)), start_(now_()) {}

  OpStamp Record(Op op) override {
    std::lock_guard lock(mu_);
    op.index = static_cast<int64_t>(history_.size());
    op.time = std::chrono::duration_cast<std::chrono::nanoseconds>(now_() - start_).count();
    const OpStamp stamp{op.index, op.time};
    history_.push_back(std::move(op));
    return stamp;
  }
  History history() const {
    std::lock_guard lock(mu_);
    return history_;
  }

 private:
  const Now now_;
  const std::chrono::steady_clock::time_point start_;
  mutable std::mutex mu_;
  History history_;
};

}  // namespace locksmith::testing
