// RwCacheChecker: the stale-read half of the `rw-cache` workload's verdict
// (the other half, no writer overlapping any holder, is the rw-lock checker:
// DoubleHolderChecker with HoldModes::kReadWrite). Writers update a value
// under the write lock, each with a value of its own; readers read it under
// the read lock. Per key:
//   stale-read    an ok read returned a value older than the last write
//                 that completed (ok) before the read was invoked: the
//                 value of a write that had completed before that last
//                 write was invoked, or the initial value (`init`, else 0)
//                 after a write completed.
//   unknown-value a read of a value no write (nor the initial value) had.
//   stale-cache   the final read found a cached copy that differs from the
//                 value itself (a later reader would read it).
// A write that ended info may have happened at any time after its invoke:
// its value is never older than anything.
//
// History shape: `write` {"value"} -> ok | fail | info; reads `read` -> ok
// {"value"} (a value of null, a cache miss, reads nothing) and `read-db` ->
// ok {"value"}; optionally `init` {"value"} and `final` -> ok {"value",
// "cache"} (of kResourceProcess or any process). The cache-aside workload
// adds `fill` {"value"} (a reader putting what it read from the database
// into the cache) and `acquire` ok (the holds): each anomaly names the
// reader (its read and its hold), the writer of the last write (its write
// and hold), the write whose value was returned and, when a fill put the
// value there, the filler (its hold, its database read and its fill), with
// every op in "ops". Stateless; thread-safe.
#pragma once

#include "checker/checker.h"

namespace locksmith {

class RwCacheChecker : public WholeHistoryChecker {
 public:
  std::string Name() const override { return "rw-cache"; }
  CheckResult CheckWhole(const History& history) const override;
};

}  // namespace locksmith
