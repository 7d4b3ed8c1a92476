// The `mutex` workload: `concurrency` workers over `keys` lock keys; each
// loops acquire, hold for a random time in `hold`, release. A worker whose op
// ended unknown (info) continues under a new process number (process +
// concurrency), as in Jepsen: a process never issues another op after info.
// Judged by the double-holder checker, owner-mutex linearizability and perf
// stats. Runs on one io_context
// thread; not thread-safe.
#pragma once

#include <chrono>

#include "workloads/workload.h"

namespace locksmith {

class OpLog;

class LockClient;

class MutexWorkload : public Workload {
 public:
  std::string Name() const override { return "mutex"; }
  boost::asio::awaitable<Status> Run(WorkloadContext& ctx) override;
  std::vector<std::unique_ptr<Checker>> Checkers() const override;

 private:
  // `start`: when the workers were started, the origin of --rate's slots.
  boost::asio::awaitable<void> Worker(WorkloadContext& ctx, int worker, LockClient& client,
                                      std::chrono::steady_clock::time_point start);
  // Inside a critical section on `key`: takes the stall the client-pause
  // nemesis asked for, if any, recorded as a "pause" op of this worker.
  boost::asio::awaitable<void> StallIfAsked(WorkloadContext& ctx, OpLog& log,
                                            const std::string& key);
};

}  // namespace locksmith
