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
// every op in "ops".
//
// One pass, judged in the order a run records its ops (index and time
// stamped together, so in time order) with the key's `init` before its
// reads, as the workload writes it. Each read is judged at its completion
// against the writes known then; one that looks stale or unknown is kept
// (a compact record) and judged again at the end, when a write of its
// value invoked later may clear it, as a whole-history reading would. Of
// two writes completed at the same time, the last recorded counts as the
// last (the whole-history reading left that order unspecified). Memory: per
// key and process, the holds and ops in flight; what grows: per written
// value, one Write record (about 150 bytes), per cache fill one Fill
// record (about 150 bytes), and per suspect read one Read record.
// Stateless; thread-safe.
#pragma once

#include "checker/checker.h"

namespace locksmith {

class RwCacheChecker : public Checker {
 public:
  std::string Name() const override { return "rw-cache"; }
  std::unique_ptr<CheckPass> Start() const override;
};

}  // namespace locksmith
