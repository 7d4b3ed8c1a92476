// WorkloadPhase: the run's workload on one Boost.Asio io_context: its
// clients (the backend's own, or the programs of --client exec:, whose
// handshakes come first), the fault schedule started once every client is
// connected, until the time limit, a failed worker, a failed history write,
// a signal or the watchdog (a grace past the limit, naming the ops in
// flight) ends it; then the heal, and the workload's final reads on healed
// servers. What it learns goes into the run's facts (RunContext). One run's,
// on its thread.
#pragma once

#include <memory>
#include <string>

#include "backends/lock_service.h"
#include "cluster/host.h"
#include "harness/run_context.h"
#include "harness/run_recording.h"
#include "harness/workload_watchdog.h"
#include "workloads/resource_store.h"
#include "workloads/workload.h"

namespace locksmith {

class ExecClients;

class WorkloadPhase {
 public:
  // `resource` may be null (a workload without one); `progress_label`
  // leads the live progress line.
  WorkloadPhase(RunContext& run, RecordingPhase& recording, LockService& service,
                Cluster& cluster, ResourceStore* resource, std::string progress_label);

  // The workload, the heal, the final reads; a failure: RunContext::Fail.
  void Run();

 private:
  WorkloadOptions Options() const;
  // The clients' makers and the schedule's start, wired into `ctx`.
  void Wire(WorkloadContext& ctx, const std::unique_ptr<WorkloadWatchdog>& watchdog,
            ExecClients* exec);
  std::unique_ptr<WorkloadWatchdog> NewWatchdog(boost::asio::io_context& io) const;
  // The workload until it ends, with the live progress line.
  Status RunUntilItEnds(WorkloadContext& ctx, WorkloadWatchdog& watchdog);
  // A hang the watchdog ended is a verdict, not a failure, unless the
  // workload had returned an error: that stands.
  void TakeWatchdogsWord(const WorkloadWatchdog& watchdog, Status& status, const Status& ran);
  Status FinalReads(WorkloadContext& ctx);

  RunContext& run_;
  RecordingPhase& recording_;
  LockService& service_;
  Cluster& cluster_;
  ResourceStore* const resource_;
  const std::string progress_label_;
};

}  // namespace locksmith
