#include "harness/run_recording.h"

#include "backends/exec_protocol.h"
#include "base/exit_codes.h"
#include "base/seed.h"
#include "history/history.h"
#include "history/history_log.h"
#include "nemesis/fault_ledger.h"
#include "nemesis/scenario_steps.h"

namespace locksmith {

RecordingPhase::RecordingPhase(RunContext& run, LockService& service, Cluster* cluster,
                               LiveJudge& live)
    : run_(run) {
  if (!MakeWorkloadAndNemesis(service, cluster)) return;
  run.facts.zero = std::chrono::steady_clock::now();
  auto history = HistoryRecorder::Open(run.store.File(kRunHistoryLog), run.facts.zero);
  if (!history) {
    run.Fail(kExitRunFailed, history.error());
    return;
  }
  history_ = std::move(*history);
  run.facts.judge = true;
  live.Follow(run.store.File(kRunHistoryLog), history_->extent());
  StartRecording(service);
}

bool RecordingPhase::MakeWorkloadAndNemesis(LockService& service, Cluster* cluster) {
  auto workload = run_.modules.make_workload(run_.config);
  if (!workload) {
    run_.Fail(kExitBadInput, workload.error());
    return false;
  }
  workload_ = std::move(*workload);
  faults_.emplace(NemesisContext{service, client_faults_,
                                 SubSeed(*run_.config.seed, kNemesisSeed),
                                 workload_->LongestLease(), cluster, run_.config.concurrency,
                                 IsExecClient(run_.config.ResolvedClient())});
  if (run_.config.nemesis_all) LeaveOutUnfitNemeses();
  auto nemesis = run_.modules.make_nemesis(run_.config, *faults_);
  if (!nemesis) {
    run_.Fail(kExitBadInput, nemesis.error());
    return false;
  }
  nemesis_ = std::move(*nemesis);
  return true;
}

// `--nemesis all` means every family this run's backend and hosts can
// take: the others are left out, each with its reason in the log.
void RecordingPhase::LeaveOutUnfitNemeses() {
  for (const UnfitFamily& unfit : UnfitFamilies(run_.config.ChosenNemeses(), *faults_)) {
    run_.log.Info("--nemesis all: leaves out " + unfit.name + ": " + unfit.reason);
    run_.config.DropNemesis(unfit.name);
  }
}

void RecordingPhase::StartRecording(LockService& service) {
  std::vector<ScheduledFault> schedule = run_.modules.make_schedule(run_.config, service);
  // What was asked for, to tell afterwards what of it happened.
  const LedgerRequest request{run_.config.nemesis, run_.config.time_limit_s,
                              run_.config.steps.is_null() ? run_.config.nemesis_interval_s : 0};
  run_.facts.faults = FaultLedger::Plan(schedule, request).ToJson();
  // Scripted steps may wait for workload events: every op recorded is
  // shown to them, counted for the live progress line on its way.
  events_.emplace(TriggersOfSteps(schedule));
  progress_.emplace(*history_);
  in_flight_.emplace(*progress_, run_.config.concurrency);
  observed_.emplace(*in_flight_, *events_);
  runner_.emplace(*nemesis_, *observed_, std::move(schedule), &*events_,
                  FamiliesWithLanesOfTheirOwn());
  WatchServiceEvents(service);
}

// The service's own events (a leader change...), recorded as they come, and
// the kinds it declares, for results.json.
void RecordingPhase::WatchServiceEvents(LockService& service) {
  service_events_ = Capability<HasEvents>(service);
  if (service_events_ == nullptr) return;
  run_.facts.service_events = service_events_->EventKinds().ToJson();
  EventRecorder& observed = *observed_;
  Status watching = service_events_->WatchEvents([&observed](ServiceEvent e) {
    observed.Record(Op{.process = kServiceProcess, .type = OpType::kInfo, .f = e.f,
                       .value = std::move(e.value)});
  });
  if (!watching) run_.log.Error("service events: " + watching.error());
}

void RecordingPhase::Heal() {
  if (healed_ || !runner_) return;
  healed_ = true;
  events_->Stop();
  runner_->Heal();
  const std::vector<HealFailure> failures = nemesis_->Teardown();
  for (const auto& f : failures) {
    run_.log.Error("nemesis teardown could not " + f.f + " " + f.value.dump() + ": " + f.error);
  }
  run_.facts.nemesis = {{"performed", runner_->performed()},
                        {"failed", runner_->failed()},
                        {"heal_failures", HealFailuresJson(failures)}};
}

RecordingPhase::~RecordingPhase() {
  Heal();
  if (service_events_ != nullptr) service_events_->StopEvents();
  // The runner's lanes join before the history closes: their ops count too.
  runner_.reset();
  observed_.reset();
  in_flight_.reset();
  progress_.reset();
  events_.reset();
  if (history_ == nullptr) return;
  const auto [ended, detail] = HowItEnded(run_.facts, run_.interruption, run_.config.time_limit_s);
  run_.facts.history_error = history_->Close(ended, detail);
}

}  // namespace locksmith
