// ServersPhase: the run's lock service on its hosts
// (RunModules::make_service), its passwords made run secrets, then started
// unless a signal stops the start (StartUnlessInterrupted: a start waiting
// for its ready timeout gives up at once). Stopped when the phase ends, on
// every path, before the hosts' teardown. One run's, on its thread.
#pragma once

#include <memory>

#include "backends/lock_service.h"
#include "cluster/host.h"
#include "harness/run_context.h"

namespace locksmith {

class ServersPhase {
 public:
  // Makes and starts the service. When it cannot be made or started the run
  // fails (RunContext::Fail); a signal before or during the start ends the
  // run before its workload (RunContext::StopBeforeWorkload).
  ServersPhase(RunContext& run, Cluster& cluster);
  ~ServersPhase();
  ServersPhase(const ServersPhase&) = delete;
  ServersPhase& operator=(const ServersPhase&) = delete;

  // The service, once started; null otherwise.
  LockService* started() const { return started_ ? service_.get() : nullptr; }

 private:
  void Start(RunContext& run, Cluster& cluster);

  std::unique_ptr<LockService> service_;
  bool started_ = false;
};

}  // namespace locksmith
