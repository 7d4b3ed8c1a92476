#include "harness/run.h"

#include <iostream>
#include <optional>
#include <random>
#include <sstream>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "backends/redis_service.h"
#include "backends/task_group.h"
#include "base/atomic_file.h"
#include "base/exit_codes.h"
#include "base/run_secrets.h"
#include "base/scope_exit.h"
#include "base/seed.h"
#include "base/terminal_text.h"
#include "checker/availability.h"
#include "cluster/run_registry.h"
#include "harness/exec_client_setup.h"
#include "harness/history_recorder.h"
#include "harness/in_flight_ops.h"
#include "harness/interruption.h"
#include "harness/live_judge.h"
#include "harness/progress_counter.h"
#include "harness/progress_reporter.h"
#include "harness/report_command.h"
#include "harness/results_room.h"
#include "harness/run_log.h"
#include "harness/run_store.h"
#include "harness/run_verdict.h"
#include "harness/secret_redaction.h"
#include "harness/signal_watcher.h"
#include "harness/workload_watchdog.h"
#include "history/history_file.h"
#include "history/history_log.h"
#include "nemesis/fault_descriptions.h"
#include "nemesis/fault_ledger.h"
#include "nemesis/nemesis_registry.h"
#include "nemesis/nemesis_runner.h"
#include "nemesis/op_events.h"
#include "nemesis/scenario_steps.h"
#include "reports/html_report.h"
#include "reports/junit_report.h"
#include "reports/run_results.h"
#include "reports/summary_printer.h"
#include "workloads/resource_store.h"
#include "workloads/workload_registry.h"

namespace locksmith {
namespace {

using Clock = std::chrono::steady_clock;

// How long the final reads may take after the heal: the servers are up and
// healed, so this bounds a read that hangs, not a slow one.
constexpr auto kFinalReadsLimit = std::chrono::seconds(30);

// What the part of a run that has servers leaves for the judge. Filled in as
// the phases go, and by the scopes' teardowns too (the heal's failures), so
// whatever a phase knew still reaches results.json when a later one fails.
struct ServerPhaseFacts {
  Clock::time_point zero = Clock::now();  // the workload's start: history time 0
  bool judge = false;                     // history.bin exists (maybe empty)
  int failure_exit = 0;                   // kExitRunFailed / kExitBadInput
  std::string error;                      // why the run failed
  nlohmann::json nemesis = nullptr;       // performed, failed, heal_failures
  std::string history_error;              // the first failed history write, if one did
  std::string hung;                       // the watchdog's line, when it ended the workload
  nlohmann::json faults = nullptr;        // the fault ledger's plan (FaultLedger::Plan)
};

// The workload as one task of the run's TaskGroup: its error (it could not
// start) lands in *status; what it throws, the group records. The watchdog
// learns when it returned.
boost::asio::awaitable<void> RunWorkload(Workload& workload, WorkloadContext& ctx,
                                         Status& status, WorkloadWatchdog& watchdog) {
  status = co_await workload.Run(ctx);
  watchdog.WorkloadEnded();
}

// How the workload ended: the history's closing record's words.
std::pair<std::string, std::string> HowItEnded(const ServerPhaseFacts& facts,
                                               const Interruption& interruption,
                                               double time_limit_s) {
  if (!facts.hung.empty()) return {kEndedHung, facts.hung};
  if (interruption.StoppedTheRun()) {
    return {kEndedInterrupted, interruption.Describe(facts.zero, time_limit_s)};
  }
  if (facts.failure_exit != 0) return {kEndedError, facts.error};
  return {kEndedTimeLimit, ""};
}

boost::asio::awaitable<void> ReadFinalState(Workload& workload, WorkloadContext& ctx,
                                            Status& status) {
  status = co_await workload.FinalReads(ctx);
}

// Runs `task` on `io` until it ends; a throw is an error naming `what`, and
// so is a throw in the clients' own coroutines (BackgroundTasks: a
// connection's read loop, a watchdog's renewals). The failure hook stops
// the workload's other coroutines early.
Status RunTask(boost::asio::io_context& io, WorkloadContext& ctx, const std::string& what,
               boost::asio::awaitable<void> task, const Status& task_status) {
  const auto stop = [&](const std::string&) { ctx.failed = true; };
  TaskGroup& background = BackgroundTasks(io.get_executor());
  background.SetOnFailure(stop);
  TaskGroup tasks(io.get_executor(), stop);
  tasks.Spawn(what, std::move(task));
  io.restart();
  io.run();
  background.SetOnFailure(nullptr);
  if (background.failed()) return Error{*background.failure()};
  if (tasks.failed()) return Error{*tasks.failure()};
  if (tasks.running() > 0) return Error{what + " was stopped before it ended"};
  if (!task_status) return Error{what + ": " + task_status.error()};
  return OkStatus();
}

// The phases that need servers, in Jepsen's with-os / with-db style: each
// method sets one thing up, guards its undoing with a scope, and calls the
// next; however the innermost one leaves (return or exception), the guards
// unwind in reverse: nemesis healed, history closed, servers stopped,
// cluster torn down. What the judge needs goes into `facts`. One run, on
// the run's thread. The config is the run's own copy: `--nemesis all` may
// leave families out of it once the service is known.
class ServerPhases {
 public:
  ServerPhases(RunConfig& config, const RunStore& store, RunLog& log,
               Interruption& interruption, SignalWatcher& signals, const RunModules& modules,
               ServerPhaseFacts& facts, const std::string& progress_label, LiveJudge& live_judge)
      : config_(config),
        store_(store),
        log_(log),
        interruption_(interruption),
        signals_(signals),
        modules_(modules),
        facts_(facts),
        progress_label_(progress_label),
        live_judge_(live_judge) {}

  void Run() {
    if (interruption_.BeforeWorkload()) return StopBeforeWorkload();
    WithCluster();
  }

 private:
  void Fail(int exit_code, const std::string& error) {
    facts_.failure_exit = exit_code;
    facts_.error = error;
    log_.Error(error);
  }

  // Stopped before the first op: an empty history, judged as unknown.
  void StopBeforeWorkload() {
    facts_.zero = Clock::now();
    auto empty = HistoryRecorder::Open(store_.File(kRunHistoryLog), facts_.zero);
    if (!empty) return Fail(kExitRunFailed, empty.error());
    facts_.history_error = (*empty)->Close(kEndedInterrupted, "before the workload started");
    facts_.judge = true;
  }

  void WithCluster() {
    auto cluster = modules_.make_cluster(config_, store_.NodesDir());
    if (!cluster) return Fail(kExitRunFailed, cluster.error());
    ScopeExit teardown([&] {
      const char* why = interruption_.BeforeWorkload()  ? "interrupted before the workload"
                        : interruption_.StoppedTheRun() ? "interrupted"
                        : facts_.failure_exit != 0      ? "failed"
                                                        : "run complete";
      log_.Info(std::string("teardown (") + why + ")");
      if (Status s = (*cluster)->Teardown(); !s) log_.Error("teardown: " + s.error());
      // The servers are gone; the copies of their files the run keeps must
      // not hand a reader their passwords.
      if (Status s = RedactSecrets(store_.NodesDir(), secrets_); !s) log_.Error(s.error());
    });
    log_.Info("cluster " + (*cluster)->Tag() + ": " +
              std::to_string((*cluster)->Hosts().size()) + " hosts");
    WithServers(**cluster);
  }

  void WithServers(Cluster& cluster) {
    cluster_ = &cluster;
    ScopeExit forget_cluster([&] { cluster_ = nullptr; });
    auto service = modules_.make_service(config_, cluster);
    if (!service) return Fail(kExitRunFailed, service.error());
    secrets_ = (*service)->Secrets();
    for (const auto& secret : secrets_) AddRunSecret(secret);
    ScopeExit stop_servers([&] { (*service)->Stop(); });
    interruption_.SetPhase(Interruption::Phase::kServers);
    if (interruption_.BeforeWorkload()) return StopBeforeWorkload();
    log_.Info("starting servers on " + std::to_string(cluster.Hosts().size()) + " hosts");
    std::string start_error;
    // On a signal, abort_start makes the start (which may wait up to its
    // ready timeout) give up now.
    const std::function<void()> no_abort = [] {};
    switch (StartUnlessInterrupted([&] { return (*service)->Start(); }, interruption_.noted(),
                                   modules_.abort_start ? modules_.abort_start : no_abort,
                                   &start_error)) {
      case StartOutcome::kStarted:
        break;
      case StartOutcome::kFailed:
        return Fail(kExitRunFailed, "servers: " + start_error);
      case StartOutcome::kInterrupted:
        if (!start_error.empty()) log_.Info("servers: start abandoned: " + start_error);
        return StopBeforeWorkload();
    }
    log_.Info("servers up: " + (*service)->Describe().dump());
    std::unique_ptr<ResourceStore> resource;
    ScopeExit stop_resource([&] {
      if (resource) resource->Stop();
      resource_ = nullptr;
    });
    if (WorkloadUsesResourceStore(config_.workload)) {
      Host* host = cluster.FindHost(kResourceHost);
      if (host == nullptr) {
        return Fail(kExitRunFailed, std::string("the cluster has no host ") + kResourceHost +
                                        " for the resource store");
      }
      auto password = NewServerPassword();
      if (!password) return Fail(kExitRunFailed, password.error());
      secrets_.push_back(*password);
      resource = std::make_unique<ResourceStore>(*host, *password);
      if (Status s = resource->Start(); !s) return Fail(kExitRunFailed, s.error());
      resource_ = resource.get();
      log_.Info("resource store up on " + host->Name() + " " + host->Address());
    }
    interruption_.SetPhase(Interruption::Phase::kWorkload);
    if (interruption_.BeforeWorkload()) return StopBeforeWorkload();
    WithClientsAndNemesis(**service);
  }

  // `--nemesis all` means every family this run's backend and hosts can
  // take: the others are left out, each with its reason in the log.
  void LeaveOutUnfitNemeses(const NemesisContext& context) {
    for (const UnfitFamily& unfit : UnfitFamilies(config_.ChosenNemeses(), context)) {
      log_.Info("--nemesis all: leaves out " + unfit.name + ": " + unfit.reason);
      config_.DropNemesis(unfit.name);
    }
  }

  void WithClientsAndNemesis(LockService& service) {
    auto workload = modules_.make_workload(config_);
    if (!workload) return Fail(kExitBadInput, workload.error());
    ClientPauses pauses;
    ClientCrashes crashes;
    const NemesisContext context{service,
                                 pauses,
                                 SubSeed(*config_.seed, kNemesisSeed),
                                 (*workload)->LongestLease(),
                                 cluster_,
                                 config_.concurrency,
                                 &crashes,
                                 IsExecClient(config_.ResolvedClient())};
    if (config_.nemesis_all) LeaveOutUnfitNemeses(context);
    auto nemesis = modules_.make_nemesis(config_, context);
    if (!nemesis) return Fail(kExitBadInput, nemesis.error());
    facts_.zero = Clock::now();
    auto recorder = HistoryRecorder::Open(store_.File(kRunHistoryLog), facts_.zero);
    if (!recorder) return Fail(kExitRunFailed, recorder.error());
    facts_.judge = true;
    live_judge_.Follow(store_.File(kRunHistoryLog), (*recorder)->extent());
    // After the heal below (scopes unwind in reverse): its ops count too;
    // the closing record says how the workload ended.
    ScopeExit close_history([&] {
      const auto [ended, detail] = HowItEnded(facts_, interruption_, config_.time_limit_s);
      facts_.history_error = (*recorder)->Close(ended, detail);
    });
    std::vector<ScheduledFault> schedule = modules_.make_schedule(config_, service);
    // What was asked for, to tell afterwards what of it happened.
    const LedgerRequest request{config_.nemesis, config_.time_limit_s,
                                config_.steps.is_null() ? config_.nemesis_interval_s : 0};
    facts_.faults = FaultLedger::Plan(schedule, request).ToJson();
    // Scripted steps may wait for workload events: every op recorded is
    // shown to them.
    OpEvents events(TriggersOfSteps(schedule));
    // Counted for the live progress line as they are recorded.
    ProgressCounter progress(**recorder);
    progress_ = &progress;
    ScopeExit forget_progress([&] { progress_ = nullptr; });
    // The ops in flight, to name what hung should the workload hang.
    InFlightOps in_flight(progress, config_.concurrency);
    EventRecorder observed(in_flight, events);
    NemesisRunner runner(**nemesis, observed, std::move(schedule), &events,
                         FamiliesWithLanesOfTheirOwn());
    // The service's own events (Sentinel's failovers), recorded as they come.
    HasEvents* reports = Capability<HasEvents>(service);
    if (reports != nullptr) {
      Status watching = reports->WatchEvents([&observed](ServiceEvent e) {
        observed.Record(Op{.process = kSentinelProcess, .type = OpType::kInfo, .f = e.f,
                           .value = std::move(e.value)});
      });
      if (!watching) log_.Error("service events: " + watching.error());
    }
    ScopeExit stop_events([reports] {
      if (reports != nullptr) reports->StopEvents();
    });
    // The heal: the schedule's pending heals, recorded, then whatever the
    // nemesis still has in place. On every path, once.
    bool healed = false;
    auto heal = [&] {
      if (healed) return;
      healed = true;
      events.Stop();
      runner.Heal();
      const std::vector<HealFailure> failures = (*nemesis)->Teardown();
      for (const auto& f : failures) {
        log_.Error("nemesis teardown could not " + f.f + " " + f.value.dump() + ": " + f.error);
      }
      facts_.nemesis = {{"performed", runner.performed()},
                        {"failed", runner.failed()},
                        {"heal_failures", HealFailuresJson(failures)}};
    };
    ScopeExit heal_on_exit(heal);
    Generate(service, **workload, observed, **recorder, runner, context, heal, in_flight);
    live_judge_.WorkloadOver();
  }

  // The workload until the time limit (or a failed history write), the
  // heal, then the final reads on healed servers.
  // `recorder` records; `history` counts what was written.
  void Generate(LockService& service, Workload& workload, OpRecorder& recorder,
                HistoryRecorder& history, NemesisRunner& runner, const NemesisContext& faults,
                const std::function<void()>& heal, const InFlightOps& in_flight) {
    // Before the io_context: clients left on it at a forced stop end last.
    auto exec = MakeRunExecClients(config_, service, *cluster_, store_.dir, log_);
    if (!exec) return Fail(kExitRunFailed, exec.error());
    boost::asio::io_context io;
    WorkloadOptions options;
    options.concurrency = config_.concurrency;
    options.rate = config_.rate;
    options.seed = SubSeed(*config_.seed, kWorkloadSeed);
    options.fencing = config_.fencing == "on";
    const auto limit =
        std::chrono::milliseconds(static_cast<int64_t>(config_.time_limit_s * 1000));
    auto watchdog = NewWatchdog(workload, in_flight, io);
    WorkloadContext ctx{io, service, recorder, options, facts_.zero + limit,
                        interruption_.noted(),
                        // The workload's time and the faults' count from the moment
                        // every client is connected: clients that take a while to
                        // start (ten Python or JVM programs) shorten neither.
                        [&] {
                          const Clock::time_point connected = Clock::now();
                          ctx.deadline = connected + limit;
                          watchdog->Arm(ctx.deadline);
                          runner.Start(connected);
                        }};
    ctx.pauses = &faults.pauses;
    ctx.crashes = faults.crashes;
    ctx.resource = resource_;
    ctx.client_address = [this](int index) { return cluster_->ClientAddress(index); };
    ctx.new_client = [&](const ClientSlot& slot) -> std::unique_ptr<LockClient> {
      watchdog->Connecting(slot.index);  // each client made begins a connect
      if (!*exec) return service.NewClient(io.get_executor(), slot);
      return (*exec)->NewClient(io.get_executor(), slot, options.concurrency,
                                [&ctx](int i) { return ctx.Slot(i); });
    };
    // A second signal stops waiting for the ops in flight.
    signals_.OnForce([&] { io.stop(); });
    ScopeExit detach_force([&] { signals_.OnForce(nullptr); });
    // A history that cannot be written (a full disk) ends the workload as a
    // failed worker does: nothing after it could be judged.
    history.OnWriteError([&] {
      log_.Error("history incomplete: " + history.write_error() + "; stopping the workload");
      boost::asio::post(io, [&ctx] { ctx.failed = true; });
    });
    ScopeExit detach_write_error([&] { history.OnWriteError(nullptr); });
    ctx.failed = !history.write_error().empty();  // a service event's write may have failed
    if (*exec) {
      // Every program's handshake before the workload: one that fails
      // refuses the run at set-up, with every program closed.
      if (Status started = StartRunExecClients(**exec, ctx); !started) {
        if (!interruption_.StoppedTheRun()) Fail(kExitRunFailed, started.error());
        return;
      }
    }
    log_.Info("workload " + config_.workload + " for " +
              nlohmann::json(config_.time_limit_s).dump() + " s, " +
              std::to_string(options.concurrency) + " clients");
    std::optional<ProgressReporter> progress;
    if (progress_ != nullptr) {
      const bool terminal = ProgressReporter::StderrIsTerminal();
      progress.emplace(*progress_,
                       ProgressReporter::Options{
                           progress_label_, config_.time_limit_s, facts_.zero, terminal,
                           terminal ? std::chrono::milliseconds(500) : std::chrono::seconds(5),
                           [this](const std::string& line) { log_.Info(line); }});
    }
    Status ran = OkStatus();
    Status status = RunTask(io, ctx, "workload " + config_.workload,
                            RunWorkload(workload, ctx, ran, *watchdog), ran);
    TakeWatchdogsWord(std::move(watchdog), status, ran);
    progress.reset();
    interruption_.SetPhase(Interruption::Phase::kFinishing);
    log_.Info("workload done: " + std::to_string(history.count()) + " history events recorded");
    heal();
    if (status && !interruption_.StoppedTheRun() && history.write_error().empty() &&
        facts_.hung.empty()) {
      ctx.deadline = Clock::now() + kFinalReadsLimit;
      Status read = OkStatus();
      status = RunTask(io, ctx, "final reads of " + config_.workload,
                       ReadFinalState(workload, ctx, read), read);
    }
    if (!status) Fail(kExitRunFailed, status.error());
  }

  // Ends a workload still running a grace past its limit, naming the ops in
  // flight: the loop stops, and the run goes on to its teardown.
  std::unique_ptr<WorkloadWatchdog> NewWatchdog(const Workload& workload,
                                                const InFlightOps& in_flight,
                                                boost::asio::io_context& io) {
    return std::make_unique<WorkloadWatchdog>(
        WorkloadGrace(std::chrono::milliseconds(config_.client_timeout_ms),
                      workload.LongestAcquireWait()),
        interruption_.noted(),
        [this, &in_flight](Clock::time_point now) { return in_flight.Describe(now - facts_.zero); },
        [&io] { io.stop(); });
  }

  // The watchdog goes with the workload (the final reads have a deadline of
  // their own); a hang it ended is a verdict, not a failure, unless the
  // workload had returned an error: that stands.
  void TakeWatchdogsWord(std::unique_ptr<WorkloadWatchdog> watchdog, Status& status,
                         const Status& ran) {
    const std::string hung = watchdog->fired();
    const bool failed = watchdog->workload_ended() && !ran;
    if (hung.empty()) return;
    log_.Error(hung + "; the workload was ended");
    if (failed) return;
    facts_.hung = hung;
    status = OkStatus();
  }

  RunConfig& config_;
  const RunStore& store_;
  RunLog& log_;
  Interruption& interruption_;
  SignalWatcher& signals_;
  const RunModules& modules_;
  ServerPhaseFacts& facts_;
  const std::string progress_label_;
  LiveJudge& live_judge_;  // follows the history as it is recorded
  const ProgressCounter* progress_ = nullptr;  // the run's counts, while the recorder is open
  Cluster* cluster_ = nullptr;  // the run's hosts, while WithServers runs
  ResourceStore* resource_ = nullptr;  // the protected resource's server, when the workload has one
  std::vector<std::string> secrets_;   // the servers' passwords, redacted from the node files
};

// What only the run itself knows, for results.json: whether it was cut
// short, what its nemesis did and planned, what failed.
nlohmann::json RunFactsForResults(const ServerPhaseFacts& facts, const Interruption& interruption,
                                  double time_limit_s) {
  const bool stopped = interruption.StoppedTheRun();
  nlohmann::json extra{{"interrupted", stopped}};
  if (stopped) extra["interruption"] = interruption.ToJson(facts.zero, time_limit_s);
  if (!facts.nemesis.is_null()) extra["nemesis"] = facts.nemesis;
  if (!facts.faults.is_null()) extra["faults"] = facts.faults;
  if (facts.failure_exit != 0) extra["workload_error"] = facts.error;
  if (!facts.history_error.empty()) extra["history_error"] = facts.history_error;
  return extra;
}

// Last, however the run ends: no file it wrote hands a reader a secret (an
// exec client's log, a report quoting an error). history.bin's strings were
// redacted as recorded, nodes/ at teardown.
void RedactRunDirectory(const std::string& dir, RunLog& log) {
  if (Status s = RedactSecrets(dir, RunSecretList(), {kRunHistoryLog, "nodes"}); !s) {
    log.Error(s.error());
  }
}

// A seed for a run given none, from the kernel's entropy: printed and stored
// in config.json, so the run replays all the same.
uint64_t FreshSeed() {
  std::random_device entropy;
  return (uint64_t{entropy()} << 32) | entropy();
}

// `outcome`, ended with `exit_code` and why.
RunOutcome EndedWith(RunOutcome outcome, int exit_code, std::string error) {
  outcome.exit_code = exit_code;
  outcome.error = std::move(error);
  return outcome;
}

}  // namespace

RunOutcome ExecuteRun(RunConfig config, SignalWatcher& signals, const RunModules& modules,
                      const std::string& progress_label) {
  RunOutcome outcome;
  if (!config.seed) config.seed = FreshSeed();
  auto store = CreateRunStore(config.store, config.ResolvedTestName());
  if (!store) return EndedWith(std::move(outcome), kExitBadInput, store.error());
  outcome.run_dir = store->dir;
  RunLog log;
  log.Open(store->File("locksmith.log"), /*echo_to_stderr=*/true);
  ScopeExit redact_run([&] { RedactRunDirectory(store->dir, log); });
  outcome.config = config.ToJson();
  if (Status s = WriteFileAtomically(store->File("config.json"), outcome.config.dump(2) + "\n");
      !s) {
    log.Error(s.error());
    return EndedWith(std::move(outcome), kExitRunFailed, s.error());
  }
  if (Status s = WriteRunController(store->dir); !s) log.Warn(s.error());  // for check RUN_DIR
  ResultsRoom room(store->dir);  // for results.json, should the history fill the disk
  log.Info("run " + store->dir + " seed " + std::to_string(*config.seed));

  // From here a signal is a reported interruption, never a crash: the run
  // tears down and reports what it has. The watcher notes it at once; the
  // run acts on it at its next poll (or at once while servers start).
  Interruption interruption;
  signals.OnInterrupt([&](int sig) {
    if (std::string line = interruption.Note(sig); !line.empty()) log.Warn("signal " + line);
  });
  // The watcher outlives this function: detach callbacks that use its locals.
  ScopeExit detach_interrupt([&] { signals.OnInterrupt(nullptr); });
  // A signal that came before the callback was set (it was set under the
  // watcher's lock, so signal() is known by now).
  if (signals.interrupted()) {
    if (std::string line = interruption.Note(signals.signal()); !line.empty()) {
      log.Warn("signal " + line);
    }
  }

  // A long history is judged while it is recorded (it outlives the phases,
  // which seal the history when they close it).
  LiveJudge live(outcome.config, WholeHistoryLogBytes(kWholeReportHistoryBytes),
                 ReportSampleReason(), [&log](const std::string& line) { log.Info(line); });
  ServerPhaseFacts facts;
  ServerPhases(config, *store, log, interruption, signals, modules, facts, progress_label, live)
      .Run();
  // Every server is gone by now: judging needs none.
  outcome.error = facts.error;
  if (!facts.judge) {
    outcome.exit_code = facts.failure_exit;
    return outcome;
  }
  const bool stopped = interruption.StoppedTheRun();
  nlohmann::json results;
  // The run's own history: however long it ran, it is judged whole.
  room.GiveBack();
  log.Info(live.began() ? "servers gone; finishing the judgement begun as the history grew"
                        : "servers gone; judging the history");
  auto result = JudgeAndReport(store->dir, outcome.config,
                               RunFactsForResults(facts, interruption, config.time_limit_s),
                               UINT64_MAX, &results, kWholeReportHistoryBytes, &live);
  if (result) log.Info("judged; results.json and the reports written");
  if (!result) {
    log.Error("check: " + result.error());
    // The full disk that cut the history short may refuse the results too:
    // the verdict is unknown all the same, for the history's reason.
    if (!facts.history_error.empty() && facts.failure_exit == 0) {
      return EndedWith(std::move(outcome), ExitCodeFor(Validity::kUnknown),
                       "history incomplete: " + facts.history_error +
                           (results.is_object() ? "; its verdict (unknown) is in results.json, but "
                                                : "; not judged: ") + result.error());
    }
    return EndedWith(std::move(outcome), kExitRunFailed, "check: " + result.error());
  }
  if (stopped) outcome.interrupted = interruption.Describe(facts.zero, config.time_limit_s);
  outcome.faults = results.value("faults", nlohmann::json());
  if (!results.value("unfulfilled", std::string()).empty()) {
    log.Warn("verdict unknown: " + results["unfulfilled"].get<std::string>());
  }
  outcome.exit_code = facts.failure_exit != 0 ? facts.failure_exit : ExitCodeFor(result->valid);
  outcome.result = std::move(*result);
  return outcome;
}

int RunTest(RunConfig config, SignalWatcher& signals, std::ostream& out) {
  const std::string store = config.store;
  RunOutcome outcome = ExecuteRun(std::move(config), signals, DefaultRunModules());
  if (!outcome.run_dir.empty()) UpdateStoreIndex(store, std::cerr);
  // Whatever an adapter or a server said, nothing printed holds a secret.
  std::ostringstream summary, notes;
  PrintRunOutcome(summary, notes, outcome);
  out << RedactRunSecrets(summary.str()) << std::flush;
  std::cerr << RedactRunSecrets(notes.str()) << std::flush;
  return outcome.exit_code;
}

}  // namespace locksmith
