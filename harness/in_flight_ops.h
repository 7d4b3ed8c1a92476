// InFlightOps: the ops a run has invoked and not yet completed, kept as the
// run records them, so that a workload that hangs past its time limit can be
// named op by op ("worker 3 (process 13) in acquire lock-0 for 6.2 s"). As a
// recorder it records through `inner`, then notes the op: an invoke opens
// (process, f), the next completion of the same process and f closes it (a
// lone completion, such as a lock event, changes nothing). Memory: one entry
// per process and f in flight. Thread-safe: workers and nemesis lanes record
// side by side.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "history/op_recorder.h"

namespace locksmith {

class InFlightOps : public OpRecorder {
 public:
  // `concurrency`: the run's workers, to tell a worker from its process.
  InFlightOps(OpRecorder& inner, int concurrency) : inner_(inner), concurrency_(concurrency) {}

  OpStamp Record(Op op) override;
  // The ops open at `now` (history time), longest open first, at most
  // `named` of them named, e.g. "worker 3 (process 13) in acquire lock-0
  // for 6.2 s, the nemesis in kill for 1.0 s (and 4 more)"; "" when none.
  std::string Describe(std::chrono::nanoseconds now, size_t named = 4) const;
  size_t open() const;

 private:
  struct Opened {
    std::string key;
    int64_t since = 0;  // the invoke's time, ns
  };

  OpRecorder& inner_;
  const int concurrency_;
  mutable std::mutex mu_;
  std::map<std::pair<int64_t, std::string>, Opened> open_;  // (process, f) -> the invoke
};

}  // namespace locksmith
