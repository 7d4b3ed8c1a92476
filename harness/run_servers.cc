#include "harness/run_servers.h"

#include <functional>

#include "base/exit_codes.h"
#include "base/run_secrets.h"

namespace locksmith {

ServersPhase::ServersPhase(RunContext& run, Cluster& cluster) {
  auto service = run.modules.make_service(run.config, cluster);
  if (!service) {
    run.Fail(kExitRunFailed, service.error());
    return;
  }
  service_ = std::move(*service);
  run.secrets = service_->Secrets();
  for (const auto& secret : run.secrets) AddRunSecret(secret);
  run.interruption.SetPhase(Interruption::Phase::kServers);
  if (run.interruption.BeforeWorkload()) {
    run.StopBeforeWorkload();
    return;
  }
  Start(run, cluster);
}

void ServersPhase::Start(RunContext& run, Cluster& cluster) {
  run.log.Info("starting servers on " + std::to_string(cluster.Hosts().size()) + " hosts");
  std::string start_error;
  // On a signal, abort_start makes the start (which may wait up to its
  // ready timeout) give up now.
  const std::function<void()> no_abort = [] {};
  switch (StartUnlessInterrupted([this] { return service_->Start(); }, run.interruption.noted(),
                                 run.modules.abort_start ? run.modules.abort_start : no_abort,
                                 &start_error)) {
    case StartOutcome::kStarted:
      started_ = true;
      run.log.Info("servers up: " + service_->Describe().dump());
      return;
    case StartOutcome::kFailed:
      return run.Fail(kExitRunFailed, "servers: " + start_error);
    case StartOutcome::kInterrupted:
      if (!start_error.empty()) run.log.Info("servers: start abandoned: " + start_error);
      return run.StopBeforeWorkload();
  }
}

ServersPhase::~ServersPhase() {
  if (service_ != nullptr) service_->Stop();
}

}  // namespace locksmith
