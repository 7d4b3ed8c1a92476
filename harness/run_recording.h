// RecordingPhase: what a run's clients and faults need before the workload
// starts, and the history they record into: the workload and the nemesis
// (for `--nemesis all`, the families this backend and these hosts can take),
// history.bin opened (time zero; the live judge follows it), the fault
// ledger's plan, the nemesis runner on its schedule, the service's own
// events recorded as they come. Its end, on every path, undoes it in
// order: the heal (the schedule's pending heals, recorded, then whatever
// the nemesis still has in place; once), the service's events stopped, the
// history closed with how the workload ended. An unknown workload or
// nemesis is bad input (254) and opens no history. One run's, on its
// thread.
#pragma once

#include <memory>
#include <optional>

#include "backends/client_faults.h"
#include "backends/lock_service.h"
#include "harness/history_recorder.h"
#include "harness/in_flight_ops.h"
#include "harness/live_judge.h"
#include "harness/progress_counter.h"
#include "harness/run_context.h"
#include "nemesis/nemesis_registry.h"
#include "nemesis/nemesis_runner.h"
#include "nemesis/op_events.h"
#include "workloads/workload.h"

namespace locksmith {

class RecordingPhase {
 public:
  // `cluster` may be null (a caller without hosts). When something cannot
  // be made the run fails (RunContext::Fail) and open() is false.
  RecordingPhase(RunContext& run, LockService& service, Cluster* cluster, LiveJudge& live);
  ~RecordingPhase();
  RecordingPhase(const RecordingPhase&) = delete;
  RecordingPhase& operator=(const RecordingPhase&) = delete;

  // Whether the history is open and the runner waits for the workload.
  bool open() const { return runner_.has_value(); }
  // The heal (see above); the facts get what the nemesis did. Once.
  void Heal();

  // What the workload phase uses, once open().
  Workload& workload() { return *workload_; }
  const NemesisContext& faults() const { return *faults_; }
  // Records an op: to history.bin, counted, and shown to scripted steps.
  OpRecorder& recorder() { return *observed_; }
  HistoryRecorder& history() { return *history_; }
  const ProgressCounter& progress() const { return *progress_; }
  const InFlightOps& in_flight() const { return *in_flight_; }
  NemesisRunner& runner() { return *runner_; }

 private:
  bool MakeWorkloadAndNemesis(LockService& service, Cluster* cluster);
  void LeaveOutUnfitNemeses();
  void StartRecording(LockService& service);
  void WatchServiceEvents(LockService& service);

  RunContext& run_;
  std::unique_ptr<Workload> workload_;
  // The client-side families' worker halves, which their nemeses add.
  ClientFaults client_faults_;
  std::optional<NemesisContext> faults_;
  std::unique_ptr<Nemesis> nemesis_;
  std::unique_ptr<HistoryRecorder> history_;
  std::optional<OpEvents> events_;
  std::optional<ProgressCounter> progress_;
  std::optional<InFlightOps> in_flight_;  // to name what hung should the workload hang
  std::optional<EventRecorder> observed_;
  std::optional<NemesisRunner> runner_;
  HasEvents* service_events_ = nullptr;
  bool healed_ = false;
};

}  // namespace locksmith
