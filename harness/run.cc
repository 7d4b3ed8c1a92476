#include "harness/run.h"

#include <algorithm>
#include <random>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "backends/backend_registry.h"
#include "backends/redis_lock_token.h"
#include "checker/history_file.h"
#include "checker/seed.h"
#include "harness/exit_codes.h"
#include "harness/history_recorder.h"
#include "harness/local_cluster.h"
#include "harness/run_log.h"
#include "harness/run_registry.h"
#include "harness/run_store.h"
#include "harness/signal_watcher.h"
#include "nemesis/kill_nemesis.h"
#include "nemesis/nemesis_runner.h"
#include "reports/html_report.h"
#include "reports/junit_report.h"
#include "reports/run_results.h"
#include "workloads/workload_registry.h"

namespace locksmith {
namespace {


// Stream numbers for SubSeed: one per consumer of randomness.
enum SeedStream : uint64_t { kWorkloadSeed = 1, kScheduleSeed = 2, kPasswordSeed = 3 };

// Builds the nemesis for the configured fault families.
Result<std::unique_ptr<Nemesis>> MakeNemesis(const RunConfig& config, LockService& service) {
  std::vector<std::unique_ptr<Nemesis>> parts;
  for (const auto& name : config.nemesis) {
    if (name == "kill") {
      auto* killable = dynamic_cast<KillableService*>(&service);
      if (killable == nullptr) return Error{"backend " + config.backend + " cannot kill nodes"};
      parts.push_back(std::make_unique<KillNemesis>(*killable));
    }
  }
  return std::unique_ptr<Nemesis>(new CompositeNemesis(std::move(parts)));
}

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
  const std::string workload_name = config.value("workload", std::string());
  auto workload = MakeWorkload(workload_name);
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

  BackendOptions backend_options;
  backend_options.name = config.backend;
  backend_options.nodes_dir = store->NodesDir();
  backend_options.redis_persistence = config.redis_persistence;
  backend_options.password = "ls-" + LockTokenGenerator(SubSeed(seed, kPasswordSeed)).Next();
  backend_options.client_timeout = std::chrono::milliseconds(config.client_timeout_ms);
  auto service = MakeLockService(backend_options, **cluster);
  if (!service) {
    log.Error(service.error());
    return kExitRunFailed;
  }
  auto teardown = [&](const std::string& why) {
    log.Info("teardown (" + why + ")");
    (*service)->Stop();
    if (Status s = (*cluster)->Teardown(); !s) log.Error("teardown: " + s.error());
  };
  if (Status s = (*service)->Start(); !s) {
    log.Error("servers: " + s.error());
    teardown("servers did not start");
    return kExitRunFailed;
  }
  log.Info("servers up: " + (*service)->Describe().dump());
  if (signals.interrupted()) {
    teardown("interrupted before the workload");
    return kExitRunFailed;
  }

  // --- workload and nemesis.
  const auto zero = std::chrono::steady_clock::now();
  auto recorder = HistoryRecorder::Open(store->File("history.jsonl"), zero);
  if (!recorder) {
    log.Error(recorder.error());
    teardown("no history file");
    return kExitRunFailed;
  }
  auto workload = MakeWorkload(config.workload);
  auto nemesis = MakeNemesis(config, **service);
  if (!workload || !nemesis) {
    log.Error(workload ? nemesis.error() : workload.error());
    teardown("bad workload or nemesis");
    return kExitBadInput;
  }
  ScheduleOptions schedule;
  schedule.faults = config.nemesis;
  schedule.nodes = (*service)->Nodes();
  schedule.interval_s = config.nemesis_interval_s;
  schedule.restart_delay_ms = config.restart_delay_ms;
  schedule.time_limit_s = config.time_limit_s;
  schedule.seed = SubSeed(seed, kScheduleSeed);
  NemesisRunner runner(**nemesis, **recorder, BuildSchedule(schedule));

  boost::asio::io_context io;
  WorkloadOptions workload_options = config.workload_options;
  workload_options.seed = SubSeed(seed, kWorkloadSeed);
  WorkloadContext ctx{io, **service, **recorder, workload_options,
                      zero + std::chrono::milliseconds(static_cast<int64_t>(config.time_limit_s * 1000)),
                      signals.interrupted(),
                      // Fault times count from the moment every client is connected.
                      [&] { runner.Start(std::chrono::steady_clock::now()); }};
  signals.OnInterrupt([&](int sig) {
    log.Warn("signal " + std::to_string(sig) + ": stopping the workload (again to force)");
  });
  signals.OnForce([&] { io.stop(); });
  // The watcher outlives this function: detach callbacks that use its locals.
  struct DetachCallbacks {
    SignalWatcher& signals;
    ~DetachCallbacks() {
      signals.OnInterrupt(nullptr);
      signals.OnForce(nullptr);
    }
  } detach{signals};
  Status workload_status = OkStatus();
  boost::asio::co_spawn(
      io,
      [&]() -> boost::asio::awaitable<void> { workload_status = co_await (*workload)->Run(ctx); },
      boost::asio::detached);
  log.Info("workload " + config.workload + " for " + config_json["time_limit_s"].dump() + " s, " +
           std::to_string(workload_options.concurrency) + " clients");
  io.run();
  runner.Stop();
  log.Info("workload done: " + std::to_string((*recorder)->count()) + " ops recorded");

  // --- heal, then stop everything before judging (checking needs no servers).
  (*nemesis)->Teardown();
  const bool interrupted = signals.interrupted();
  teardown(interrupted ? "interrupted" : "run complete");
  if (!workload_status) log.Error("workload: " + workload_status.error());
  if (!(*recorder)->write_error().empty()) log.Error((*recorder)->write_error());
  recorder->reset();

  nlohmann::json extra{{"interrupted", interrupted},
                       {"nemesis", {{"performed", runner.performed()}, {"failed", runner.failed()}}}};
  if (!workload_status) extra["workload_error"] = workload_status.error();
  auto result = JudgeAndReport(store->dir, config_json, extra);
  if (!result) {
    log.Error("check: " + result.error());
    return kExitRunFailed;
  }
  PrintSummary(out, store->dir, *result, config_json);
  if (!workload_status) return kExitRunFailed;
  return ExitCodeFor(result->valid);
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
    for (const char* key : {"interrupted", "nemesis", "workload_error"}) {
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
