// The `mutex` workload: `concurrency` workers over `keys` lock keys; each
// loops acquire, hold for a random time in `hold`, release. A worker whose op
// ended unknown (info) continues under a new process number (process +
// concurrency), as in Jepsen: a process never issues another op after info.
// Judged by the double-holder checker, owner-mutex linearizability and perf
// stats. With --read-fraction F > 0 it exercises a read-write lock: each
// acquire is shared (a reader, LockClient::AcquireShared) with probability F,
// exclusive otherwise, and says which in its value ("mode": "read" or
// "write", also on the release); the rw-lock checker (readers may overlap,
// a writer overlaps nobody) and rw-lock linearizability judge it instead.
// Runs on one io_context
// thread; not thread-safe.
#pragma once

#include <chrono>

#include "workloads/workload.h"

namespace locksmith {

class OpLog;

class LockClient;

// The mutex workload's own options (config keys "keys", "hold", "backoff",
// "lease_ms").
struct MutexOptions {
  int keys = 3;                     // lock keys "lock-0" .. "lock-{keys-1}"
  MsRange hold{10, 100};            // time spent holding an acquired lock
  MsRange backoff{5, 50};           // pause after an acquire that failed
  int64_t lease_ms = 1000;          // lease asked for on every acquire
  double read_fraction = 0;         // share of acquires that are shared (read)

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
  std::vector<std::unique_ptr<Checker>> Checkers() const override;
  std::string SharedAcquiresBy() const override;

 private:
  // `start`: when the workers were started, the origin of --rate's slots.
  boost::asio::awaitable<void> Worker(WorkloadContext& ctx, int worker, LockClient& client,
                                      std::chrono::steady_clock::time_point start);

  const MutexOptions options_;
};

}  // namespace locksmith
