// ClusterPhase: the run's hosts (RunModules::make_cluster), torn down when
// the phase ends, on every path (a failure, a throw, a signal), with the
// reason in the log; then the copies of the servers' files the run keeps
// (nodes/) lose the servers' passwords (RunContext::secrets). One run's, on
// its thread.
#pragma once

#include <memory>

#include "cluster/host.h"
#include "harness/run_context.h"

namespace locksmith {

class ClusterPhase {
 public:
  // Makes the hosts; when it cannot, the run fails (RunContext::Fail).
  explicit ClusterPhase(RunContext& run);
  ~ClusterPhase();
  ClusterPhase(const ClusterPhase&) = delete;
  ClusterPhase& operator=(const ClusterPhase&) = delete;

  // The hosts; null when they could not be made.
  Cluster* hosts() const { return cluster_.get(); }

 private:
  RunContext& run_;
  std::unique_ptr<Cluster> cluster_;
};

}  // namespace locksmith
