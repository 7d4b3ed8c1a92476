// RwCacheChecker: the stale-read half of the `rw-cache` workload's verdict
// (the other half, no writer overlapping any holder, is the rw-lock checker:
// DoubleHolderChecker with HoldModes::kReadWrite). Writers update a cached
// value under the write lock, each with a value of its own; readers read it
// under the read lock. Per key:
//   stale-read  an ok `read` returned a value older than the last write
//               that completed (ok) before the read was invoked: the value
//               of a write that had completed before that last write was
//               invoked, or the initial value (`init`, else 0) after a
//               write completed.
// A write that ended info may have happened at any time after its invoke:
// its value is never older than anything. A read of a value no write (nor
// the initial value) had is an `unknown-value`. Each anomaly names the read
// (invoke and completion), the last write before it and the write whose
// value it returned. History shape: `write` {"value"} -> ok | fail | info,
// `read` -> ok {"value"}, and optionally `init` {"value"} of kResourceProcess
// or any process. Stateless; thread-safe.
#pragma once

#include "checker/checker.h"

namespace locksmith {

class RwCacheChecker : public Checker {
 public:
  std::string Name() const override { return "rw-cache"; }
  CheckResult Check(const History& history) const override;
};

}  // namespace locksmith
