#include "harness/run_resource.h"

#include "base/exit_codes.h"
#include "base/random_secret.h"
#include "workloads/workload_registry.h"

namespace locksmith {

ResourcePhase::ResourcePhase(RunContext& run, Cluster& cluster) {
  if (!WorkloadUsesResourceStore(run.config.workload)) {
    ready_ = true;
    return;
  }
  if (Status s = Start(run, cluster); !s) {
    run.Fail(kExitRunFailed, s.error());
    return;
  }
  ready_ = true;
}

Status ResourcePhase::Start(RunContext& run, Cluster& cluster) {
  Host* host = cluster.FindHost(kResourceHost);
  if (host == nullptr) {
    return Error{std::string("the cluster has no host ") + kResourceHost +
                 " for the resource store"};
  }
  auto password = NewServerPassword();
  if (!password) return Error{password.error()};
  run.secrets.push_back(*password);
  store_ = NewResourceStore(*host, *password);
  if (Status s = store_->Start(); !s) return s;
  run.log.Info("resource store up on " + host->Name() + " " + host->Address());
  return OkStatus();
}

ResourcePhase::~ResourcePhase() {
  if (store_ != nullptr) store_->Stop();
}

}  // namespace locksmith
