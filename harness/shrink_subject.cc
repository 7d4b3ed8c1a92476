#include "harness/shrink_subject.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "base/ceil_millis.h"
#include "base/option_set.h"
#include "cluster/run_registry.h"
#include "history/history_log.h"
#include "reports/run_results.h"

namespace locksmith {
namespace {

namespace fs = std::filesystem;


// A fault window's ops as the history has them.
struct WindowOps {
  std::string family;
  std::optional<Op> begin_invoke, begin_done, end_invoke, end_done;
};

// The kind an anomaly is judged by: its class, else its type.
std::string AnomalyKind(const nlohmann::json& anomaly) {
  if (!anomaly.is_object()) return "";
  const std::string kind = anomaly.value("class", std::string());
  return kind.empty() ? anomaly.value("type", std::string()) : kind;
}

Result<nlohmann::json> RunFile(const std::string& run_dir, const std::string& name,
                               const std::string& missing) {
  if (!fs::is_regular_file(run_dir + "/" + name)) return Error{run_dir + " " + missing};
  auto j = ReadJsonFile(run_dir + "/" + name);
  if (!j) return Error{run_dir + "/" + name + ": " + j.error()};
  if (!j->is_object()) return Error{run_dir + "/" + name + " is not a JSON object"};
  return *j;
}

// The anomaly kind to reproduce, and how many of it the run had.
Result<std::pair<std::string, int>> ChooseKind(const std::string& run_dir,
                                               const nlohmann::json& anomalies,
                                               const std::string& asked) {
  std::vector<std::string> kinds;
  int count = 0;
  for (const auto& a : anomalies) {
    const std::string kind = AnomalyKind(a);
    if (kind.empty()) continue;
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(kind);
    if (kind == (asked.empty() ? kinds.front() : asked)) ++count;
  }
  if (kinds.empty()) return Error{run_dir + " is invalid but names no anomaly kind to reproduce"};
  const std::string kind = asked.empty() ? kinds.front() : asked;
  if (count == 0) {
    return Error{run_dir + " has no " + QuoteInput(asked) + " anomaly (its kinds: " +
                 JoinNames(kinds) + ")"};
  }
  return std::pair{kind, count};
}

// The run's fault windows from its history: every nemesis op that begins or
// ends one.
Result<std::map<int64_t, WindowOps>> ReadWindows(const std::string& run_dir) {
  auto stream = OpenHistoryStream(RunHistoryFile(run_dir));
  if (!stream) return Error{stream.error()};
  std::map<int64_t, WindowOps> windows;
  Op op;
  while (true) {
    auto more = (*stream)->Next(&op);
    if (!more) return Error{more.error()};
    if (!*more) break;
    if (!op.is_nemesis() || op.fault.is_null()) continue;
    auto mark = FaultMarkFromJson(op.fault);
    if (!mark) return Error{RunHistoryFile(run_dir) + ": op " + std::to_string(op.index) + ": " +
                            mark.error()};
    WindowOps& w = windows[mark->window];
    w.family = mark->family;
    const bool invoke = op.type == OpType::kInvoke;
    if (mark->begins && invoke && !w.begin_invoke) w.begin_invoke = op;
    if (mark->begins && !invoke && !w.begin_done) w.begin_done = op;
    if (!mark->begins && invoke && !w.end_invoke) w.end_invoke = op;
    if (!mark->begins && !invoke && !w.end_done) w.end_done = op;
  }
  return windows;
}

// The begin op's value with its targets as they were resolved, so the replay
// hits what the run hit whatever the seed would draw now: the nodes a node
// fault hit, the grudge a partition (or a lossy or slow link) put in place.
nlohmann::json ResolvedValue(const Op& invoke, const Op* done) {
  nlohmann::json value = invoke.value.is_object() ? invoke.value : nlohmann::json::object();
  value.erase("event");  // what an event step's op recorded of its event
  const nlohmann::json& did = done != nullptr ? done->value : nlohmann::json();
  if (did.is_object() && did.contains("grudge") && value.contains("shape")) {
    for (const char* key : {"target", "clients", "nodes", "components"}) value.erase(key);
    value["shape"] = "grudge";
    value["grudge"] = did["grudge"];
  } else if (did.is_object() && did.contains("nodes") && did["nodes"].is_array() &&
             !did["nodes"].empty() && (value.contains("target") || value.contains("node"))) {
    std::string nodes;
    for (const auto& n : did["nodes"]) {
      if (n.is_string()) nodes += (nodes.empty() ? "" : ",") + n.get<std::string>();
    }
    value.erase("node");
    value["target"] = nodes;
  }
  return value.empty() ? nlohmann::json(nullptr) : value;
}

// Ledger rows' planned times against the history's: the history counts from
// when the recorder opened, the steps from when every client was connected.
int64_t StepClockOffsetNs(const nlohmann::json& ledger,
                          const std::map<int64_t, WindowOps>& windows) {
  std::optional<int64_t> offset;
  if (ledger.value("planned_by", std::string()) != "schedule") return 0;
  for (const auto& row : ledger.value("rows", nlohmann::json::array())) {
    auto it = windows.find(row.value("window", int64_t{-1}));
    if (it == windows.end() || !it->second.begin_invoke) continue;
    const int64_t d = it->second.begin_invoke->time - row.value("at_ms", int64_t{0}) * kNsPerMs;
    offset = offset ? std::min(*offset, d) : d;
  }
  return std::max<int64_t>(offset.value_or(0), 0);
}

// The ledger's words for a window's begin ("kill n1"), else its op.
std::string LedgerWords(const nlohmann::json& ledger, int64_t window, const std::string& f) {
  for (const auto& row : ledger.value("rows", nlohmann::json::array())) {
    if (row.value("window", int64_t{-1}) != window) continue;
    if (row.value("phase", std::string("begin")) != "begin") continue;
    const std::string done = row.value("done", std::string());
    return done.empty() ? row.value("what", f) : done;
  }
  return f;
}

Result<std::vector<RecordedWindow>> RecordedWindows(const std::string& run_dir,
                                                    const nlohmann::json& ledger,
                                                    int64_t limit_ms) {
  auto windows = ReadWindows(run_dir);
  if (!windows) return Error{windows.error()};
  const int64_t offset = StepClockOffsetNs(ledger, *windows);
  std::vector<RecordedWindow> out;
  for (const auto& [number, ops] : *windows) {
    // A fault whose begin failed (or never completed) did nothing to replay.
    if (!ops.begin_invoke || !ops.begin_done || !ops.begin_done->error.empty()) continue;
    RecordedWindow w;
    w.family = ops.family;
    w.window = number;
    w.begin_ms = std::max<int64_t>((ops.begin_invoke->time - offset) / kNsPerMs, 0);
    if (w.begin_ms >= limit_ms) continue;
    w.begin = {{"at_ms", w.begin_ms}, {"f", ops.begin_invoke->f}};
    if (auto value = ResolvedValue(*ops.begin_invoke, &*ops.begin_done); !value.is_null()) {
      w.begin["value"] = value;
    }
    if (ops.end_invoke) {
      w.end_ms = std::max((ops.end_invoke->time - offset) / kNsPerMs, w.begin_ms);
      w.end = {{"at_ms", w.end_ms}, {"f", ops.end_invoke->f}};
      w.end_failed = ops.end_done && !ops.end_done->error.empty();
    }
    w.what = LedgerWords(ledger, number, ops.begin_invoke->f);
    out.push_back(std::move(w));
  }
  std::stable_sort(out.begin(), out.end(), [](const RecordedWindow& a, const RecordedWindow& b) {
    return a.begin_ms < b.begin_ms;
  });
  return out;
}

// config.json loads and validates again, with its seed: a replay is possible.
Status CheckReplayable(const std::string& run_dir, const nlohmann::json& config) {
  const std::string where = run_dir + "/config.json cannot be replayed: ";
  const nlohmann::json seed = config.value("seed", nlohmann::json());
  if (!seed.is_number_unsigned() && !(seed.is_number_integer() && seed.get<int64_t>() >= 0)) {
    return Error{where + "it records no seed"};
  }
  RunConfig c;
  if (Status s = MergeRunConfigJson(config, c); !s) return Error{where + s.error()};
  if (Status s = ValidateRunConfig(c); !s) return Error{where + s.error()};
  return OkStatus();
}

}  // namespace

Result<ShrinkSubject> LoadShrinkSubject(const std::string& run_dir, const std::string& kind) {
  if (!fs::is_directory(run_dir)) return Error{run_dir + " is not a run directory"};
  auto config = RunFile(run_dir, "config.json", "is not a run directory: it has no config.json");
  if (!config) return Error{config.error()};
  auto results = RunFile(run_dir, "results.json",
                         "has no results.json: the run was never judged (locksmith check it)");
  if (!results) return Error{results.error()};
  auto live = LiveRunController(run_dir);
  if (!live) return Error{live.error()};
  if (live->has_value()) return Error{run_dir + " is still running: shrink it once it ends"};
  const nlohmann::json valid = results->value("valid", nlohmann::json());
  if (valid != false) {
    return Error{run_dir + " is " + (valid == true ? std::string("valid") : "not invalid (" +
                 valid.dump() + ")") + ": shrink takes an invalid run, and there is no anomaly "
                 "to reproduce"};
  }
  auto chosen = ChooseKind(run_dir, results->value("anomalies", nlohmann::json::array()), kind);
  if (!chosen) return Error{chosen.error()};
  if (Status s = CheckReplayable(run_dir, *config); !s) return Error{s.error()};
  const nlohmann::json ledger = results->value("faults", nlohmann::json());
  if (!ledger.is_object() || !ledger.contains("rows")) {
    return Error{run_dir + " recorded no fault ledger (results.json has no \"faults\"): its "
                 "faults cannot be replayed"};
  }
  ShrinkSubject subject;
  subject.run_dir = run_dir;
  subject.config = *config;
  subject.seed = (*config)["seed"].get<uint64_t>();
  subject.test_name = config->value("test_name", std::string("run"));
  subject.kind = chosen->first;
  subject.kind_count = chosen->second;
  subject.time_limit_s = config->value("time_limit_s", 0.0);
  auto windows = RecordedWindows(run_dir, ledger,
                                 std::llround(subject.time_limit_s * 1000));
  if (!windows) return Error{run_dir + ": " + windows.error()};
  if (windows->empty()) {
    return Error{run_dir + " recorded no fault that took place: there is nothing to shrink"};
  }
  subject.windows = std::move(*windows);
  return subject;
}

std::string WindowText(const RecordedWindow& window) {
  char at[32];
  std::snprintf(at, sizeof at, "%.1f", static_cast<double>(window.begin_ms) / 1000);
  return window.what + " at " + at + " s";
}

std::string WindowNumbers(const ShrinkSubject& subject, const std::vector<size_t>& kept) {
  std::string out;
  for (size_t i : kept) {
    out += (out.empty() ? "" : ", ") + std::to_string(subject.windows[i].window);
  }
  return out.empty() ? "none" : out;
}

namespace {

// When window `i`'s end is replayed: as recorded, unless it failed in the
// run ("n1 is not paused": a kill of the paused node came first, and its
// restart is not paused) and a kept window begins inside it, as the fault
// that undid it there did. Replayed as recorded, that end would fail its
// step and leave the candidate unknown; dropped, the window would stay open
// into the family's next. So it comes just before the first such window
// begins: paused until the kill, as in the run.
int64_t ReplayedEndMs(const ShrinkSubject& subject, const std::vector<size_t>& kept, size_t i) {
  const RecordedWindow& w = subject.windows[i];
  int64_t end_ms = w.end_ms;
  if (!w.end_failed) return end_ms;
  for (size_t other : kept) {
    const RecordedWindow& o = subject.windows[other];
    if (other != i && o.begin_ms >= w.begin_ms && o.begin_ms <= end_ms) end_ms = o.begin_ms;
  }
  return end_ms;
}

}  // namespace

nlohmann::json ReplaySteps(const ShrinkSubject& subject, const std::vector<size_t>& kept,
                           int64_t limit_ms) {
  struct Timed {
    int64_t at_ms;
    bool ends;
    nlohmann::json step;
  };
  std::vector<Timed> steps;
  for (size_t i : kept) {
    const RecordedWindow& w = subject.windows[i];
    if (w.begin_ms >= limit_ms) continue;
    steps.push_back({w.begin_ms, false, w.begin});
    const int64_t end_ms = ReplayedEndMs(subject, kept, i);
    if (!w.end.is_null() && end_ms < limit_ms) {
      nlohmann::json end = w.end;
      end["at_ms"] = end_ms;
      steps.push_back({end_ms, true, std::move(end)});
    }
  }
  // In time order; at one moment an end before a begin, so one family's
  // window closes before its next opens.
  std::stable_sort(steps.begin(), steps.end(), [](const Timed& a, const Timed& b) {
    return a.at_ms != b.at_ms ? a.at_ms < b.at_ms : a.ends && !b.ends;
  });
  nlohmann::json out = nlohmann::json::array();
  for (auto& s : steps) out.push_back(std::move(s.step));
  return out;
}

int64_t LastStepMs(const ShrinkSubject& subject, const std::vector<size_t>& kept) {
  int64_t last = 0;
  for (size_t i : kept) last = std::max(last, subject.windows[i].begin_ms);
  return last;
}

Result<RunConfig> CandidateConfig(const ShrinkSubject& subject, const std::vector<size_t>& kept,
                                  int64_t limit_ms, const std::string& store,
                                  const std::string& test_name) {
  nlohmann::json j = subject.config;
  j["nemesis"] = nlohmann::json::array();  // the steps bring their families
  j["steps"] = ReplaySteps(subject, kept, limit_ms);
  j["time_limit_s"] = static_cast<double>(limit_ms) / 1000;
  j["store"] = store;
  j["test_name"] = test_name;
  for (const char* key : {"scenario", "prediction", "predicted_verdict", "predicted_anomaly"}) {
    j[key] = "";
  }
  RunConfig config;
  if (Status s = MergeRunConfigJson(j, config); !s) return Error{s.error()};
  if (Status s = ValidateRunConfig(config); !s) return Error{s.error()};
  return config;
}

}  // namespace locksmith
