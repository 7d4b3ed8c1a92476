// HistoryRecorder: the run's OpRecorder. Stamps each op with the next index
// and the time since run start (controller's monotonic clock) and appends it
// to history.jsonl with one write(2) per line, so a crashed or killed run
// still leaves every recorded line on disk and checkable. Thread-safe.
#pragma once

#include <chrono>
#include <mutex>
#include <string>

#include "checker/op_recorder.h"

namespace locksmith {

class HistoryRecorder : public OpRecorder {
 public:
  // Creates (truncates) the file. `start` is the run's time zero.
  static Result<std::unique_ptr<HistoryRecorder>> Open(
      const std::string& path, std::chrono::steady_clock::time_point start);
  ~HistoryRecorder() override;
  HistoryRecorder(const HistoryRecorder&) = delete;
  HistoryRecorder& operator=(const HistoryRecorder&) = delete;

  Op Record(Op op) override;
  int64_t count() const;
  // The first write error, if any (the run reports it; recording goes on).
  std::string write_error() const;

 private:
  HistoryRecorder(int fd, std::chrono::steady_clock::time_point start) : fd_(fd), start_(start) {}

  const int fd_;
  const std::chrono::steady_clock::time_point start_;
  mutable std::mutex mu_;
  int64_t next_index_ = 0;
  std::string write_error_;
};

}  // namespace locksmith
