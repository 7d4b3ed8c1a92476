#include "harness/run.h"

#include "harness/interruption_watch.h"
#include "harness/live_judge.h"
#include "harness/run_cluster.h"
#include "harness/run_context.h"
#include "harness/run_ending.h"
#include "harness/run_opening.h"
#include "harness/run_recording.h"
#include "harness/run_resource.h"
#include "harness/run_servers.h"
#include "harness/run_workload.h"

namespace locksmith {
namespace {

// The phases that need servers, in Jepsen's with-os / with-db style: each
// phase is a scope that sets one thing up and undoes it when the scope
// ends, so however this returns (a phase failed, a signal, a throw) they
// unwind in reverse: nemesis healed and history closed, resource store and
// servers stopped, cluster torn down. What the judge needs goes into
// run.facts.
void RunWithServers(RunContext& run, LiveJudge& live, const std::string& progress_label) {
  if (run.interruption.BeforeWorkload()) return run.StopBeforeWorkload();
  ClusterPhase cluster(run);  // the hosts
  if (cluster.hosts() == nullptr) return;
  ServersPhase servers(run, *cluster.hosts());  // the lock service, started
  if (servers.started() == nullptr) return;
  ResourcePhase resource(run, *cluster.hosts());  // the protected resource's store
  if (!resource.ready()) return;
  run.interruption.SetPhase(Interruption::Phase::kWorkload);
  if (run.interruption.BeforeWorkload()) return run.StopBeforeWorkload();
  // The workload, the nemesis and the history they record into.
  RecordingPhase recording(run, *servers.started(), cluster.hosts(), live);
  if (!recording.open()) return;
  // Until the time limit, then the heal and the final reads.
  WorkloadPhase(run, recording, *servers.started(), *cluster.hosts(), resource.store(),
                progress_label)
      .Run();
  live.WorkloadOver();
}

}  // namespace

RunOutcome ExecuteRun(RunConfig config, SignalWatcher& signals, const RunModules& modules,
                      const std::string& progress_label) {
  RunOutcome outcome;
  // The seed, the run's directory, its log and config.json; closed last, on
  // every path, leaving no secret in a file the run wrote.
  std::unique_ptr<OpenedRun> opened = OpenedRun::Open(config, outcome);
  if (opened == nullptr) return outcome;
  // From here a signal is a reported interruption, never a crash: the run
  // tears down and reports what it has.
  Interruption interruption;
  InterruptionWatch watch(signals, interruption, opened->log());
  // A long history is judged while it is recorded (it outlives the phases,
  // which seal the history when they close it).
  LiveJudge live(outcome.config, WholeHistoryLogBytes(kWholeReportHistoryBytes),
                 ReportSampleReason(), [&opened](const std::string& line) {
                   opened->log().Info(line);
                 });
  RunContext run{config, opened->store(), opened->log(), interruption, signals, modules};
  RunWithServers(run, live, progress_label);
  // Every server is gone by now: judging needs none.
  return JudgeRun(run, *opened, live, std::move(outcome));
}

int RunTest(RunConfig config, SignalWatcher& signals, std::ostream& out) {
  const std::string store = config.store;
  return ReportRun(ExecuteRun(std::move(config), signals, DefaultRunModules()), store, out);
}

}  // namespace locksmith
