// The `rw-cache` workload: a read-mostly value behind a cache, kept the
// cache-aside way, with a read-write lock around every access. Per key
// `cache-i` the resource store holds a *database* value (`cache-i`) and
// its *cached copy* (`cache-i:cache`). Each worker loops: draw a role
// (reader with probability `read_fraction`), acquire the key's lock --
// shared for a reader when the client has shared acquires (zk-rw), else
// exclusive -- and:
//   writer  works, then writes a value of its own to the database and
//           deletes the cached copy, in one store step (`write`);
//   reader  reads the cached copy (`read`); on a miss reads the database
//           (`read-db`), works, and puts what it read into the cache
//           (`fill`).
// Then it releases. A client-pause stall (pause_at "write") hits a holder
// just before its write to the store: a writer's write, a reader's fill.
//
// Why two keys: one Redis value is linearizable, so with a single key no
// read could ever return a value older than the last completed write, lock
// or no lock. A cache is where a broken lock really hurts: a reader that
// read the database, then stalled past its lease (a GC pause) or whose
// lock was never exclusive (a broken client), fills the cache with that old
// value *after* a writer's invalidation, and every later reader hits the
// stale copy until the next write (the "stale set" of memcache's leases).
// While the lock holds, no reader's read-db and fill straddle a write, so
// no read is stale.
//
// Every store call is an op of the worker's process (values: `write`
// {"value"}, `read` ok {"value", "hit"}, `read-db` ok {"value"}, `fill`
// {"value"}; "fence" with --fencing on, where each call is fenced as the
// inventory's are); acquires and releases say the lock's "mode" ("read":
// shared) and the "role". After the heal the final read of each key
// (`final` ok {"value", "cache"}). Judged by the rw-cache checker (stale
// reads, and a stale cached copy left at the end, with the reader, the
// writer, the filler and their holds), the rw-lock double-holder checker
// (no writer overlaps any holder), fencing, stuck locks and perf stats.
// See ResourceWorkload. Not thread-safe.
#pragma once

#include "checker/stuck_lock_checker.h"
#include "workloads/resource_workload.h"

namespace locksmith {

// Config keys "caches", "read_fraction", "work", "backoff", "lease_ms",
// "pause_at", "stuck_leases".
struct RwCacheOptions : ResourceHoldOptions {
  int caches = 1;
  double read_fraction = 0.8;

  void Declare(OptionSet& set);
};

class RwCacheWorkload : public ResourceWorkload {
 public:
  using Options = RwCacheOptions;
  explicit RwCacheWorkload(RwCacheOptions options = {});

  std::string Name() const override { return "rw-cache"; }
  std::vector<std::unique_ptr<Checker>> Checkers() const override;

  // The value of worker `worker`'s `nth` write (1, 2, ..): no two writes of
  // a run write the same value, and none writes the initial 0.
  static int64_t WriteValue(int worker, int64_t nth, int concurrency);
  // The lock mode and role an acquire and its release record.
  static nlohmann::json HoldTags(bool reader, bool shared);

 protected:
  HoldPlan PlanHold(std::mt19937_64& rng, bool client_shares) const override;
  boost::asio::awaitable<void> Critical(Holder& h) override;
  boost::asio::awaitable<FinalRead> ReadFinal(ResourceClient& reader,
                                              const std::string& key) override;

 private:
  boost::asio::awaitable<void> Read(Holder& h);
  boost::asio::awaitable<void> Write(Holder& h);

  const double read_fraction_;
};

}  // namespace locksmith
