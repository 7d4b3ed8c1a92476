// OpRecorder: where workloads and nemeses record operations as they happen.
// Record() stamps the op with the next index and the current time (ns since
// run start on the controller's monotonic clock) and returns that stamp:
// the op itself is the recorder's (a recorder that keeps it never copies
// it; a wrapper that needs to see it takes what it needs before).
// Implementations must be thread-safe: client workers and the nemesis thread
// record concurrently. The streaming file implementation is
// harness/history_recorder.h; tests use an in-memory one.
#pragma once

#include "history/history.h"

namespace locksmith {

// What Record() gave an op: its place in the history and its time.
struct OpStamp {
  int64_t index = 0;
  int64_t time = 0;
};

class OpRecorder {
 public:
  virtual ~OpRecorder() = default;
  virtual OpStamp Record(Op op) = 0;
};

}  // namespace locksmith
