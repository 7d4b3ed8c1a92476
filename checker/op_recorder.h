// OpRecorder: where workloads and nemeses record operations as they happen.
// Record() stamps the op with the next index and the current time (ns since
// run start on the controller's monotonic clock) and returns the stamped op.
// Implementations must be thread-safe: client workers and the nemesis thread
// record concurrently. The streaming file implementation is
// harness/history_recorder.h; tests use an in-memory one.
#pragma once

#include "checker/history.h"

namespace locksmith {

class OpRecorder {
 public:
  virtual ~OpRecorder() = default;
  virtual Op Record(Op op) = 0;
};

}  // namespace locksmith
