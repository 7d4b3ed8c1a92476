#include "harness/run_cluster.h"

#include "base/exit_codes.h"
#include "harness/secret_redaction.h"

namespace locksmith {

ClusterPhase::ClusterPhase(RunContext& run) : run_(run) {
  auto cluster = run.modules.make_cluster(run.config, run.store.NodesDir());
  if (!cluster) {
    run.Fail(kExitRunFailed, cluster.error());
    return;
  }
  cluster_ = std::move(*cluster);
  run.log.Info("cluster " + cluster_->Tag() + ": " + std::to_string(cluster_->Hosts().size()) +
               " hosts");
}

ClusterPhase::~ClusterPhase() {
  if (cluster_ == nullptr) return;
  const Interruption& interruption = run_.interruption;
  const char* why = interruption.BeforeWorkload()   ? "interrupted before the workload"
                    : interruption.StoppedTheRun()  ? "interrupted"
                    : run_.facts.failure_exit != 0  ? "failed"
                                                    : "run complete";
  run_.log.Info(std::string("teardown (") + why + ")");
  if (Status s = cluster_->Teardown(); !s) run_.log.Error("teardown: " + s.error());
  // The servers are gone; the copies of their files the run keeps must not
  // hand a reader their passwords.
  if (Status s = RedactSecrets(run_.store.NodesDir(), run_.secrets); !s) {
    run_.log.Error(s.error());
  }
}

}  // namespace locksmith
