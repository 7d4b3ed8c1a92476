// ResourcePhase: the protected resource's store (workloads/resource_store.h)
// on the cluster's host "store", with a password of its own made a run
// secret, when the run's workload has a resource; stopped when the phase
// ends, on every path, before the lock service. One run's, on its thread.
#pragma once

#include <memory>

#include "cluster/host.h"
#include "harness/run_context.h"
#include "workloads/resource_store.h"

namespace locksmith {

class ResourcePhase {
 public:
  // Starts the store when the workload uses one; when it cannot, the run
  // fails (RunContext::Fail).
  ResourcePhase(RunContext& run, Cluster& cluster);
  ~ResourcePhase();
  ResourcePhase(const ResourcePhase&) = delete;
  ResourcePhase& operator=(const ResourcePhase&) = delete;

  // Whether the workload can begin: its store is up, or it needs none.
  bool ready() const { return ready_; }
  // The store; null when the workload has none.
  ResourceStore* store() const { return ready_ ? store_.get() : nullptr; }

 private:
  Status Start(RunContext& run, Cluster& cluster);

  std::unique_ptr<ResourceStore> store_;
  bool ready_ = false;
};

}  // namespace locksmith
