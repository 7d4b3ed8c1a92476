#include "harness/run.h"

#include <algorithm>
#include <functional>
#include <random>
#include <sstream>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "backends/backend_registry.h"
#include "checker/history_file.h"
#include "checker/seed.h"
#include "harness/exit_codes.h"
#include "harness/history_recorder.h"
#include "harness/interruption.h"
#include "harness/local_cluster.h"
#include "harness/process_supervisor.h"
#include "harness/run_log.h"
#include "harness/run_registry.h"
#include "harness/run_store.h"
#include "harness/signal_watcher.h"
#include "nemesis/nemesis_registry.h"
#include "nemesis/nemesis_runner.h"
#include "reports/html_report.h"
#include "reports/junit_report.h"
#include "reports/run_results.h"
#include "workloads/workload_registry.h"

namespace locksmith {
namespace {


// Stream numbers for SubSeed: one per consumer of randomness.
enum SeedStream : uint64_t { kWorkloadSeed = 1, kScheduleSeed = 2, kPasswordSeed = 3 };

// What a scenario file predicted (Y: two holders at once possible, N: not)
// next to what this run observed; null when the config predicts nothing.
nlohmann::json DebateOutcome(const nlohmann::json& config, Validity valid) {
  const std::string predicted = config.value("prediction", std::string());
  if (predicted.empty()) return nullptr;
  const std::string observed = valid == Validity::kFalse  ? "Y"
                               : valid == Validity::kTrue ? "N"
                                                          : "?";
  return {{"scenario", config.value("scenario", std::string())},
          {"predicted", predicted},
          {"observed", observed},
          {"matches", predicted == observed}};
}

void PrintSummary(std::ostream& out, const std::string& run_dir, const CheckResult& r,
                  const nlohmann::json& config) {
  const auto& perf = r.stats.value("perf", nlohmann::json::object()).value("stats", nlohmann::json::object());
  const auto& by_type = perf.value("by_type", nlohmann::json::object());
  out << "run:     " << run_dir << "\n"
      << "ops:     " << perf.value("ops", 0) << " (ok " << by_type.value("ok", 0) << ", fail "
      << by_type.value("fail", 0) << ", info " << by_type.value("info", 0) << ")\n";
  for (const auto& [name, checker] : r.stats.items()) {
    if (name == "perf") continue;
    out << name << ": " << checker.value("valid", nlohmann::json("unknown")).dump();
    const auto& s = checker.value("stats", nlohmann::json::object());
    if (s.contains("double_holders")) {
      out << " (" << s["double_holders"] << " double holders: " << s.value("unsafe_grants", 0)
          << " unsafe grants, " << s.value("expired_lease_uses", 0) << " expired-lease uses)";
    }
    out << "\n";
  }
  size_t shown = 0;
  for (const auto& a : r.anomalies) {
    if (shown++ == 5) {
      out << "  ... " << r.anomalies.size() - 5 << " more in results.json\n";
      break;
    }
    out << "  " << a.value("type", "anomaly") << " " << a.value("class", "") << " on "
        << a.value("key", "?") << ":";
    for (const auto& h : a.value("holders", nlohmann::json::array())) {
      out << " process " << h["process"] << " (acquire #" << h["acquire"]["index"] << ")";
    }
    if (a.contains("op") && a["op"].is_object()) {
      out << " " << a["op"].value("f", "op") << " #" << a["op"].value("index", -1) << " by process "
          << a["op"]["process"] << " cannot be linearized";
    }
    out << "\n";
  }
  const char* verdict = r.valid == Validity::kTrue    ? "VALID"
                        : r.valid == Validity::kFalse ? "INVALID"
                                                      : "UNKNOWN";
  for (const auto& warning : r.warnings) out << "warning: " << warning << "\n";
  out << "verdict: " << verdict << (r.reason.empty() ? "" : " (" + r.reason + ")") << "\n";
  if (auto debate = DebateOutcome(config, r.valid); !debate.is_null()) {
    out << "debate:  scenario " << debate["scenario"].get<std::string>() << " predicts "
        << debate["predicted"].get<std::string>() << ", this run observed "
        << debate["observed"].get<std::string>()
        << (debate["matches"].get<bool>() ? " (as predicted)" : " (NOT as predicted)") << "\n";
  }
  out << "report:  " << run_dir << "/report.html\n";
}

}  // namespace

Result<CheckResult> JudgeAndReport(const std::string& run_dir, const nlohmann::json& config,
                                   const nlohmann::json& extra) {
  // The workload as the run built it: its checkers use its own options.
  RunConfig run_config;
  if (Status s = MergeRunConfigJson(config, run_config); !s) {
    return Error{"config.json: " + s.error()};
  }
  if (!run_config.workload_options) {
    return Error{"config.json: " + FindWorkload(run_config.workload).error()};
  }
  if (Status s = run_config.workload_options->set().Validate(); !s) {
    return Error{"config.json: " + s.error()};
  }
  auto workload = MakeWorkload(run_config.workload, *run_config.workload_options);
  if (!workload) return Error{workload.error()};
  // The loader `check FILE` uses: the same errors ("FILE:LINE: reason"), the
  // same tolerance of a last line cut short by a crash, said in a warning.
  const std::string history_file = run_dir + "/history.jsonl";
  std::vector<SkippedLine> skipped;
  auto history = LoadHistoryFile(history_file, "jsonl", &skipped);
  if (!history) return Error{history.error()};
  CompositeChecker checker((*workload)->Checkers());
  CheckResult result = checker.Check(*history);
  // A run in which nothing succeeded proves nothing: never call it valid
  // (the rule `check FILE` applies too).
  ApplyNothingToJudge(*history, result);
  for (auto& line : DescribeSkippedLines(history_file, skipped)) result.warnings.push_back(line);
  nlohmann::json results = result.ToJson();
  results["history"] = {{"skipped_lines", skipped.size()}};
  for (const auto& [k, v] : extra.items()) results[k] = v;
  if (auto debate = DebateOutcome(config, result.valid); !debate.is_null()) results["debate"] = debate;
  if (Status s = WriteFileAtomically(run_dir + "/results.json", results.dump(2) + "\n"); !s) {
    return Error{s.error()};
  }
  // The reports get what is already in memory: a large history is read once.
  const std::string report = run_dir + "/report.html";
  if (Status s = WriteHtmlReport(*history, results, config, report); !s) {
    return Error{"report: " + s.error()};
  }
  const double duration_s = history->empty() ? 0 : static_cast<double>(history->back().time) / 1e9;
  if (Status s = WriteJunitXml(results, config, run_dir + "/junit.xml", duration_s); !s) {
    return Error{"junit: " + s.error()};
  }
  return result;
}

namespace {

// Runs a callback when the scope ends, on every return path.
class ScopeExit {
 public:
  explicit ScopeExit(std::function<void()> f) : f_(std::move(f)) {}
  ~ScopeExit() { f_(); }
  ScopeExit(const ScopeExit&) = delete;
  ScopeExit& operator=(const ScopeExit&) = delete;

 private:
  std::function<void()> f_;
};

// The summary with "interrupted: <what>" just above its verdict line, where
// a reader of the verdict cannot miss it.
std::string WithInterruptedLine(const std::string& summary, const std::string& what) {
  const std::string line = "interrupted: " + what + "\n";
  const size_t verdict = summary.find("\nverdict: ");
  if (verdict == std::string::npos) return summary + line;
  return summary.substr(0, verdict + 1) + line + summary.substr(verdict + 1);
}

// Judges and reports a stopped run: results.json, report.html and junit.xml
// say it was interrupted, and so does stdout, next to the verdict.
int JudgeReportAndPrint(const std::string& run_dir, const nlohmann::json& config_json,
                        nlohmann::json extra, const Interruption& interruption,
                        std::chrono::steady_clock::time_point workload_start,
                        double time_limit_s, RunLog& log, std::ostream& out,
                        CheckResult* result_out) {
  const bool stopped = interruption.StoppedTheRun();
  extra["interrupted"] = stopped;
  if (stopped) extra["interruption"] = interruption.ToJson(workload_start, time_limit_s);
  auto result = JudgeAndReport(run_dir, config_json, extra);
  if (!result) {
    log.Error("check: " + result.error());
    return kExitRunFailed;
  }
  std::ostringstream summary;
  PrintSummary(summary, run_dir, *result, config_json);
  out << (stopped ? WithInterruptedLine(summary.str(),
                                        interruption.Describe(workload_start, time_limit_s))
                  : summary.str());
  if (result_out != nullptr) *result_out = std::move(*result);
  return 0;
}

}  // namespace

int RunTest(RunConfig config, SignalWatcher& signals, std::ostream& out) {
  if (!config.seed) {
    std::random_device entropy;
    config.seed = (uint64_t{entropy()} << 32) | entropy();
  }
  auto store = CreateRunStore(config.store, config.ResolvedTestName());
  if (!store) {
    std::fprintf(stderr, "locksmith: %s\n", store.error().c_str());
    return kExitBadInput;
  }
  RunLog log;
  log.Open(store->File("locksmith.log"), /*echo_to_stderr=*/true);
  nlohmann::json config_json = config.ToJson();
  if (Status s = WriteFileAtomically(store->File("config.json"), config_json.dump(2) + "\n"); !s) {
    log.Error(s.error());
    return kExitRunFailed;
  }
  if (Status s = WriteRunController(store->dir); !s) log.Warn(s.error());  // for check RUN_DIR
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

  // --- cluster and servers; teardown is the cluster's destructor from here on.
  auto nodes = BackendNodeNames(config.backend);
  if (!nodes) {
    log.Error(nodes.error());
    return kExitBadInput;
  }
  LocalClusterOptions cluster_options;
  cluster_options.node_names = *nodes;
  cluster_options.nodes_dir = store->NodesDir();
  cluster_options.force_loopback = config.loopback;
  auto cluster = CreateLocalCluster(cluster_options);
  if (!cluster) {
    log.Error("cluster: " + cluster.error());
    return kExitRunFailed;
  }
  log.Info("cluster " + (*cluster)->Tag() + ": " + std::to_string((*cluster)->Hosts().size()) +
           " hosts");
  const uint64_t seed = *config.seed;

  std::unique_ptr<LockService> service;
  auto teardown = [&](const std::string& why) {
    log.Info("teardown (" + why + ")");
    if (service) service->Stop();
    if (Status s = (*cluster)->Teardown(); !s) log.Error("teardown: " + s.error());
  };
  // A run stopped before its first op: torn down, judged on an empty
  // history (unknown: nothing ran), reported as interrupted.
  auto stop_before_workload = [&]() {
    teardown("interrupted before the workload");
    const auto now = std::chrono::steady_clock::now();
    if (auto empty = HistoryRecorder::Open(store->File("history.jsonl"), now); !empty) {
      log.Error(empty.error());
      return kExitRunFailed;
    }
    CheckResult result;
    if (int failed = JudgeReportAndPrint(store->dir, config_json, nlohmann::json::object(),
                                         interruption, now, config.time_limit_s, log, out, &result);
        failed != 0) {
      return failed;
    }
    return ExitCodeFor(result.valid);
  };
  if (interruption.BeforeWorkload()) return stop_before_workload();

  const BackendContext backend_context{**cluster, SubSeed(seed, kPasswordSeed),
                                       std::chrono::milliseconds(config.client_timeout_ms)};
  if (auto made = MakeLockService(config.backend, *config.backend_options, backend_context);
      made) {
    service = std::move(*made);
  } else {
    log.Error(made.error());
    teardown("no lock service");
    return kExitRunFailed;
  }
  interruption.SetPhase(Interruption::Phase::kServers);
  if (interruption.BeforeWorkload()) return stop_before_workload();
  log.Info("starting servers on " + std::to_string((*cluster)->Hosts().size()) + " hosts");
  std::string start_error;
  // On a signal, SIGKILL every server this process spawned so the start
  // (which may wait up to its ready timeout) gives up now; teardown follows.
  switch (StartUnlessInterrupted([&] { return service->Start(); }, interruption.noted(),
                                 [] { KillAllSpawnedAsyncSignalSafe(); }, &start_error)) {
    case StartOutcome::kStarted:
      break;
    case StartOutcome::kFailed:
      log.Error("servers: " + start_error);
      teardown("servers did not start");
      return kExitRunFailed;
    case StartOutcome::kInterrupted:
      if (!start_error.empty()) log.Info("servers: start abandoned: " + start_error);
      return stop_before_workload();
  }
  log.Info("servers up: " + service->Describe().dump());

  // --- workload and nemesis. A signal from here on stops the workload,
  // which ends at once if it has not begun.
  const auto zero = std::chrono::steady_clock::now();
  interruption.SetPhase(Interruption::Phase::kWorkload);
  if (interruption.BeforeWorkload()) return stop_before_workload();
  auto recorder = HistoryRecorder::Open(store->File("history.jsonl"), zero);
  if (!recorder) {
    log.Error(recorder.error());
    teardown("no history file");
    return kExitRunFailed;
  }
  auto workload = MakeWorkload(config.workload, *config.workload_options);
  auto nemesis = MakeNemesis(config.ChosenNemeses(), *service);
  auto families = ScheduleFamilies(config.ChosenNemeses());
  if (!workload || !nemesis || !families) {
    log.Error(!workload ? workload.error() : !nemesis ? nemesis.error() : families.error());
    teardown("bad workload or nemesis");
    return kExitBadInput;
  }
  ScheduleOptions schedule;
  schedule.families = std::move(*families);
  schedule.nodes = service->Nodes();
  schedule.interval_s = config.nemesis_interval_s;
  schedule.time_limit_s = config.time_limit_s;
  schedule.seed = SubSeed(seed, kScheduleSeed);
  NemesisRunner runner(**nemesis, **recorder, BuildSchedule(schedule));

  boost::asio::io_context io;
  WorkloadOptions workload_options;
  workload_options.concurrency = config.concurrency;
  workload_options.rate = config.rate;
  workload_options.seed = SubSeed(seed, kWorkloadSeed);
  WorkloadContext ctx{io, *service, **recorder, workload_options,
                      zero + std::chrono::milliseconds(static_cast<int64_t>(config.time_limit_s * 1000)),
                      interruption.noted(),
                      // Fault times count from the moment every client is connected.
                      [&] { runner.Start(std::chrono::steady_clock::now()); }};
  Status workload_status = OkStatus();
  signals.OnForce([&] { io.stop(); });
  ScopeExit detach_force([&] { signals.OnForce(nullptr); });
  boost::asio::co_spawn(
      io,
      [&]() -> boost::asio::awaitable<void> { workload_status = co_await (*workload)->Run(ctx); },
      boost::asio::detached);
  log.Info("workload " + config.workload + " for " + config_json["time_limit_s"].dump() + " s, " +
           std::to_string(workload_options.concurrency) + " clients");
  io.run();
  interruption.SetPhase(Interruption::Phase::kFinishing);
  runner.Stop();
  // Events, not ops: an op is an invocation and a completion (the summary's
  // "ops:" counts completed client ops), and nemesis events count here too.
  log.Info("workload done: " + std::to_string((*recorder)->count()) + " history events recorded");

  // --- heal, then stop everything before judging (checking needs no servers).
  const std::vector<HealFailure> heal_failures = (*nemesis)->Teardown();
  for (const auto& f : heal_failures) {
    log.Error("nemesis teardown could not " + f.f + " " + f.value.dump() + ": " + f.error);
  }
  teardown(interruption.StoppedTheRun() ? "interrupted" : "run complete");
  if (!workload_status) log.Error("workload: " + workload_status.error());
  if (!(*recorder)->write_error().empty()) log.Error((*recorder)->write_error());
  recorder->reset();

  nlohmann::json extra{{"nemesis", {{"performed", runner.performed()}, {"failed", runner.failed()},
                                    {"heal_failures", HealFailuresJson(heal_failures)}}}};
  if (!workload_status) extra["workload_error"] = workload_status.error();
  CheckResult result;
  if (int failed = JudgeReportAndPrint(store->dir, config_json, extra, interruption, zero,
                                       config.time_limit_s, log, out, &result);
      failed != 0) {
    return failed;
  }
  if (!workload_status) return kExitRunFailed;
  return ExitCodeFor(result.valid);
}

int RecheckRun(const std::string& run_dir, std::ostream& out) {
  // The stored config names the workload, hence the checkers.
  auto config_json = ReadJsonFile(run_dir + "/config.json", "config.json");
  RunConfig config;
  Status loaded = config_json ? MergeRunConfigJson(*config_json, config) : Error{config_json.error()};
  if (!loaded) {
    std::fprintf(stderr, "locksmith: %s is not a run directory: %s\n", run_dir.c_str(),
                 loaded.error().c_str());
    return kExitBadInput;
  }
  // A run still going rewrites these files itself when it ends; re-judging
  // it now would hand readers a verdict on part of it, then replace it.
  auto live = LiveRunController(run_dir);
  if (!live) {
    std::fprintf(stderr, "locksmith: %s\n", live.error().c_str());
    return kExitBadInput;
  }
  if (live->has_value()) {
    std::fprintf(stderr,
                 "locksmith: %s is still running (locksmith pid %d): check it once the run "
                 "ends, or check %s/history.jsonl --model owner-mutex, which rewrites nothing\n",
                 run_dir.c_str(), **live, run_dir.c_str());
    return kExitBadInput;
  }
  // Facts only the run itself could record survive the re-check.
  nlohmann::json extra{{"rechecked", true}};
  if (auto previous = ReadJsonFile(run_dir + "/results.json", "results.json"); previous) {
    for (const char* key : {"interrupted", "interruption", "nemesis", "workload_error"}) {
      if (previous->contains(key)) extra[key] = (*previous)[key];
    }
  }
  auto result = JudgeAndReport(run_dir, *config_json, extra);
  if (!result) {
    std::fprintf(stderr, "locksmith: %s\n", result.error().c_str());
    return kExitBadInput;
  }
  PrintSummary(out, run_dir, *result, *config_json);
  return ExitCodeFor(result->valid);
}

}  // namespace locksmith
