// The `mutex` workload: `concurrency` workers over `keys` lock keys; each
// loops acquire, hold for a random time in `hold`, release. An acquire waits
// for the lock up to `acquire_wait_ms` on every backend (AcquireWaiting:
// try-lock clients retry, blocking ones queue) and is recorded as one op
// saying how many attempts it took and how long it waited. A worker whose op
// ended unknown (info) continues under a new process number (process +
// concurrency), as in Jepsen: a process never issues another op after info.
// Judged by the double-holder checker, owner-mutex linearizability and perf
// stats. Lock events a client reports while a worker holds a lock (renewals,
// lock lost: LockClient::SetEventSink) are recorded as lone ops of that
// worker's process; a holder told it lost its lock stops holding it (no
// stall, no release). With --read-fraction F > 0 it exercises a read-write
// lock: each acquire is shared (a reader, LockClient::AcquireShared) with
// probability F, exclusive otherwise, and says which in its value ("mode":
// "read" or "write", also on the release); the rw-lock checker (readers may
// overlap, a writer overlaps nobody) and rw-lock linearizability judge it
// instead. Runs on one io_context thread; not thread-safe.
#pragma once

#include <chrono>
#include <cstdint>

#include "checker/stuck_lock_checker.h"
#include "workloads/workload.h"

namespace locksmith {

class OpLog;

class LockClient;

// The mutex workload's own options (config keys "keys", "hold", "backoff",
// "acquire_wait_ms", "lease_ms", "reentry", "read_fraction", "stuck_leases",
// "hold_within_validity_ms").
struct MutexOptions {
  int keys = 3;                     // lock keys "lock-0" .. "lock-{keys-1}"
  MsRange hold{10, 100};            // time spent holding an acquired lock
  MsRange backoff{5, 50};           // pause after a refused attempt or acquire
  // How long one acquire waits for the lock (AcquireWaiting): try-lock
  // clients retry within it, blocking ones queue; 0 is a single attempt.
  int64_t acquire_wait_ms = 2000;
  int64_t lease_ms = 1000;          // lease asked for on every acquire
  // Probability that a holder re-enters its lock (a nested acquire / release
  // of the key it holds, "reentry": true in their invokes) halfway through
  // its hold; 0 never (and draws nothing, so older seeds replay).
  double reentry = 0;
  double read_fraction = 0;         // share of acquires that are shared (read)
  int stuck_leases = StuckLockChecker::kDefaultLeases;  // the stuck-lock checker's threshold
  // A holder that works only while its lease lasts, as the Redlock page
  // asks: each hold ends this many ms before the validity its acquire
  // reported runs out, when that comes before the hold drawn from `hold`;
  // -1: holds ignore the validity. Whoever reckons the validity (a client
  // on a wall clock that stepped) decides how long the lock is used.
  int64_t hold_within_validity_ms = -1;

  void Declare(OptionSet& set);
};

class MutexWorkload : public Workload {
 public:
  using Options = MutexOptions;
  explicit MutexWorkload(MutexOptions options = {}) : options_(options) {}

  std::string Name() const override { return "mutex"; }
  boost::asio::awaitable<Status> Run(WorkloadContext& ctx) override;
  std::chrono::milliseconds LongestLease() const override {
    return std::chrono::milliseconds(options_.lease_ms);
  }
  std::chrono::milliseconds LongestAcquireWait() const override {
    return std::chrono::milliseconds(options_.acquire_wait_ms);
  }
  std::vector<std::unique_ptr<Checker>> Checkers() const override;
  std::string SharedAcquiresBy() const override;

 private:
  struct WorkerState;
  // `start`: when the workers were started, the origin of --rate's slots.
  boost::asio::awaitable<void> Worker(WorkloadContext& ctx, int worker, LockClient& client,
                                      WorkerState& state,
                                      std::chrono::steady_clock::time_point start);
  // How long a hold lasts: `drawn` from --hold, cut to the acquire's
  // validity less the margin under --hold-within-validity.
  int64_t HoldMs(int64_t drawn, int64_t validity_ms) const;
  // A nested acquire and release of `key`, which the worker holds.
  boost::asio::awaitable<void> ReEnter(WorkloadContext& ctx, OpLog& log, LockClient& client,
                                       const std::string& key, int64_t hold_ms);

  const MutexOptions options_;
};

}  // namespace locksmith
