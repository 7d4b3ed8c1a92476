#include "harness/shrink_command.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <optional>
#include <sstream>

#include "base/atomic_file.h"
#include "base/exit_codes.h"
#include "base/terminal_text.h"
#include "harness/delta_debugger.h"
#include "harness/run.h"
#include "harness/shrink_subject.h"
#include "harness/signal_watcher.h"
#include "reports/escape.h"
#include "reports/shrink_page.h"
#include "reports/summary_printer.h"

namespace locksmith {
namespace {

namespace fs = std::filesystem;
using SteadyClock = std::chrono::steady_clock;

// Before the first try has been timed: what a run takes beyond its time
// limit (start, teardown, judging), a generous guess for the budget.
constexpr double kFirstOverheadGuessS = 3;

std::string MsAsSeconds(int64_t ms) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(1);
  s << static_cast<double>(ms) / 1000 << " s";
  return s.str();
}

std::string VerdictOf(const RunOutcome& o) {
  if (!o.result || o.exit_code == kExitRunFailed || o.exit_code == kExitBadInput) return "failed";
  return o.result->valid == Validity::kFalse  ? "invalid"
         : o.result->valid == Validity::kTrue ? "valid"
                                              : "unknown";
}

// What one try showed, for shrink.json, the page and the console.
nlohmann::json TryShown(const RunOutcome& o, const std::string& out_dir, const std::string& kind) {
  nlohmann::json kinds = nlohmann::json::object();
  if (o.result) {
    for (const auto& a : o.result->anomalies) {
      std::string k = a.value("class", std::string());
      if (k.empty()) k = a.value("type", std::string("anomaly"));
      kinds[k] = kinds.value(k, 0) + 1;
    }
  }
  const std::string dir =
      o.run_dir.empty() ? "" : fs::relative(o.run_dir, out_dir).lexically_normal().string();
  nlohmann::json t = {{"run", dir},
                      {"verdict", VerdictOf(o)},
                      {"exit_code", o.exit_code},
                      {"anomalies", kinds},
                      {"reproduced", o.result && HasAnomalyOfKind(o.result->anomalies, kind)}};
  if (!o.error.empty()) t["error"] = o.error;
  if (!o.interrupted.empty()) t["interrupted"] = o.interrupted;
  return t;
}

// "invalid (unsafe-grant 2)", or a try that could not run with its error:
// "failed (\"steps\": step 7: ...)".
std::string TryText(const nlohmann::json& t) {
  std::string text = t.value("verdict", std::string());
  std::string detail;
  const nlohmann::json anomalies = t.value("anomalies", nlohmann::json::object());
  for (const auto& [k, n] : anomalies.items()) {
    detail += (detail.empty() ? "" : ", ") + k + " " + n.dump();
  }
  if (detail.empty()) detail = t.value("error", std::string());
  return detail.empty() ? text : text + " (" + detail + ")";
}

// When a candidate reproduces. The faults: when any try shows the kind.
// The time limit: when every try does, so a shorter run never costs the
// scenario its reproducibility (bisected by "any", the limit ends where one
// try in K still shows it). The rate: every try is run and counted.
enum class TryRule { kAnyTry, kEveryTry, kRate };

class Shrinker {
 public:
  Shrinker(ShrinkSubject subject, const ShrinkOptions& options, std::string out_dir,
           SignalWatcher& signals, std::ostream& out, ShrinkTryRunner run_try)
      : subject_(std::move(subject)),
        options_(options),
        out_dir_(std::move(out_dir)),
        signals_(signals),
        out_(out),
        run_try_(std::move(run_try)),
        start_(SteadyClock::now()) {}

  int Run();

 private:
  int64_t OriginalLimitMs() const { return std::llround(subject_.time_limit_s * 1000); }
  // Whether a try of `limit_ms` would end past the budget.
  bool OverBudget(int64_t limit_ms) const;
  double ElapsedS() const {
    return std::chrono::duration<double>(SteadyClock::now() - start_).count();
  }
  // A candidate's tries, as `rule` says.
  Trial TryCandidate(const std::vector<size_t>& kept, int64_t limit_ms, const std::string& phase,
                     TryRule rule = TryRule::kAnyTry);
  void PrintCandidate(const nlohmann::json& record);
  nlohmann::json Record(const std::vector<size_t>& kept, int64_t limit_ms) const;
  int Finish(const std::vector<size_t>& kept, int64_t limit_ms, bool reproduced);
  Status WriteMinimal(const std::vector<size_t>& kept, int64_t limit_ms, int hits, int tries);
  void PrintVerdictLines(const std::vector<size_t>& kept, int64_t limit_ms);

  ShrinkSubject subject_;
  const ShrinkOptions& options_;
  const std::string out_dir_;
  SignalWatcher& signals_;
  std::ostream& out_;
  ShrinkTryRunner run_try_;
  const SteadyClock::time_point start_;
  double overhead_s_ = kFirstOverheadGuessS;  // the most a try took beyond its limit
  nlohmann::json candidates_ = nlohmann::json::array();
  std::string stopped_;  // "budget" or "interrupted": why the search stopped early
  int runs_ = 0;
};

bool Shrinker::OverBudget(int64_t limit_ms) const {
  if (options_.budget_s <= 0) return false;
  return ElapsedS() + static_cast<double>(limit_ms) / 1000 + overhead_s_ > options_.budget_s;
}

Trial Shrinker::TryCandidate(const std::vector<size_t>& kept, int64_t limit_ms,
                             const std::string& phase, TryRule rule) {
  nlohmann::json record = {{"candidate", candidates_.size() + 1}, {"phase", phase},
                           {"windows", nlohmann::json::array()}, {"time_limit_s",
                           static_cast<double>(limit_ms) / 1000}, {"tries", nlohmann::json::array()}};
  for (size_t i : kept) record["windows"].push_back(subject_.windows[i].window);
  int hits = 0, misses = 0;
  for (int t = 1; t <= options_.tries; ++t) {
    if ((rule == TryRule::kAnyTry && hits > 0) || (rule == TryRule::kEveryTry && misses > 0)) {
      break;
    }
    if (signals_.interrupted()) stopped_ = "interrupted";
    else if (OverBudget(limit_ms)) stopped_ = "budget";
    if (!stopped_.empty()) break;
    auto config = CandidateConfig(subject_, kept, limit_ms, out_dir_ + "/runs",
                                  subject_.test_name + "-shrink");
    if (!config) {
      record["tries"].push_back({{"verdict", "failed"}, {"error", config.error()},
                                 {"reproduced", false}});
      break;
    }
    const auto began = SteadyClock::now();
    const RunOutcome o = run_try_(std::move(*config), "shrink " + std::to_string(
                                                          candidates_.size() + 1) + "." +
                                                          std::to_string(t));
    ++runs_;
    const double took = std::chrono::duration<double>(SteadyClock::now() - began).count();
    overhead_s_ = std::max(overhead_s_, took - static_cast<double>(limit_ms) / 1000);
    record["tries"].push_back(TryShown(o, out_dir_, subject_.kind));
    (record["tries"].back()["reproduced"].get<bool>() ? hits : misses) += 1;
    if (!o.interrupted.empty()) stopped_ = "interrupted";
  }
  const bool all_run = record["tries"].size() == static_cast<size_t>(options_.tries);
  const bool reproduced = rule == TryRule::kEveryTry ? misses == 0 : hits > 0;
  const bool asked = all_run || (rule == TryRule::kAnyTry && hits > 0) ||
                     (rule == TryRule::kEveryTry && misses > 0);
  record["reproduced"] = asked ? nlohmann::json(reproduced) : nlohmann::json(nullptr);
  record["hits"] = hits;
  candidates_.push_back(record);
  PrintCandidate(record);
  if (!asked) return Trial::kOutOfBudget;
  return reproduced ? Trial::kReproduced : Trial::kNotReproduced;
}

void Shrinker::PrintCandidate(const nlohmann::json& r) {
  std::vector<size_t> kept;
  std::string faults;
  for (const auto& w : r["windows"]) {
    for (size_t i = 0; i < subject_.windows.size(); ++i) {
      if (subject_.windows[i].window != w.get<int64_t>()) continue;
      faults += (faults.empty() ? "" : "; ") + WindowText(subject_.windows[i]);
      kept.push_back(i);
    }
  }
  std::ostringstream line;
  line << "candidate " << r["candidate"] << " (" << r["phase"].get<std::string>() << "): "
       << kept.size() << " of " << subject_.windows.size() << " faults ["
       << (faults.empty() ? "none" : faults) << "], "
       << MsAsSeconds(std::llround(r["time_limit_s"].get<double>() * 1000)) << ":";
  int t = 0;
  for (const auto& shown : r["tries"]) {
    ++t;
    line << (t > 1 ? "," : "") << " try " << t << " " << TryText(shown);
  }
  const nlohmann::json& reproduced = r["reproduced"];
  line << " -> " << (reproduced.is_null() ? "not decided (stopped)"
                     : reproduced.get<bool>() ? "reproduced" : "not reproduced");
  out_ << TerminalSafe(line.str()) << "\n" << std::flush;
}

int Shrinker::Run() {
  out_ << TerminalSafe("shrink: " + subject_.run_dir + ": " + subject_.kind + " (" +
                       std::to_string(subject_.kind_count) + " in the run), " +
                       std::to_string(subject_.windows.size()) + " faults, time limit " +
                       MsAsSeconds(OriginalLimitMs()) + ", seed " + std::to_string(subject_.seed) +
                       "; " + std::to_string(options_.tries) + " tries a candidate")
       << "\n" << std::flush;
  std::vector<size_t> all;
  for (size_t i = 0; i < subject_.windows.size(); ++i) all.push_back(i);
  // ddmin starts from a set that reproduces: the replay of every fault.
  const Trial whole = TryCandidate(all, OriginalLimitMs(), "all faults");
  if (whole != Trial::kReproduced) return Finish(all, OriginalLimitMs(), false);
  DeltaDebugger dd([&](const std::vector<size_t>& subset) {
    std::vector<size_t> kept;
    for (size_t i : subset) kept.push_back(all[i]);
    return TryCandidate(kept, OriginalLimitMs(), "faults");
  });
  const std::vector<size_t> kept = dd.Minimize(all.size()).kept;
  // Then the time limit: the shortest that still reproduces after the last
  // kept step.
  int64_t limit_ms = OriginalLimitMs();
  if (stopped_.empty()) {
    const int64_t resolution = std::max<int64_t>(std::llround(options_.resolution_s * 1000), 1);
    limit_ms = BisectShortest(LastStepMs(subject_, kept), OriginalLimitMs(), resolution,
                              [&](int64_t limit) {
                                return TryCandidate(kept, limit, "time limit", TryRule::kEveryTry);
                              })
                   .shortest;
  }
  return Finish(kept, limit_ms, true);
}

nlohmann::json Shrinker::Record(const std::vector<size_t>& kept, int64_t limit_ms) const {
  nlohmann::json windows = nlohmann::json::array();
  for (size_t i = 0; i < subject_.windows.size(); ++i) {
    const RecordedWindow& w = subject_.windows[i];
    windows.push_back({{"window", w.window}, {"family", w.family}, {"what", w.what},
                       {"at_s", static_cast<double>(w.begin_ms) / 1000},
                       {"kept", std::find(kept.begin(), kept.end(), i) != kept.end()},
                       {"begin", w.begin}, {"end", w.end}});
  }
  return {{"run", subject_.run_dir},
          {"seed", subject_.seed},
          {"anomaly", subject_.kind},
          {"anomalies_in_run", subject_.kind_count},
          {"tries_per_candidate", options_.tries},
          {"budget_s", options_.budget_s},
          {"elapsed_s", ElapsedS()},
          {"runs", runs_},
          {"stopped", stopped_},
          {"windows", windows},
          {"time_limit_s", {{"run", subject_.time_limit_s},
                            {"minimal", static_cast<double>(limit_ms) / 1000}}},
          {"candidates", candidates_}};
}

int Shrinker::Finish(const std::vector<size_t>& kept, int64_t limit_ms, bool reproduced) {
  if (stopped_ == "budget") {
    out_ << "budget: " << options_.budget_s << " s would be exceeded by the next try: stopped "
         << "after " << runs_ << " runs, with the smallest reproducing set found so far\n";
  } else if (stopped_ == "interrupted") {
    out_ << "interrupted: stopped after " << runs_ << " runs, with the smallest reproducing "
         << "set found so far\n";
  }
  int hits = 0, tries = 0;
  if (reproduced && stopped_.empty()) {
    // The rate: every try of the result, none stopping at the first.
    const size_t before = candidates_.size();
    TryCandidate(kept, limit_ms, "reproduction rate", TryRule::kRate);
    hits = candidates_[before]["hits"].get<int>();
    tries = static_cast<int>(candidates_[before]["tries"].size());
  }
  if (reproduced && tries == 0) {
    // No time for it: the tries of the search's last reproducing candidate.
    for (const auto& c : candidates_) {
      if (c["reproduced"] != true) continue;
      hits = c["hits"].get<int>();
      tries = static_cast<int>(c["tries"].size());
    }
  }
  nlohmann::json record = Record(kept, limit_ms);
  record["rate"] = {{"reproduced", hits}, {"tries", tries}};
  record["minimal"] = reproduced ? nlohmann::json("minimal.json") : nlohmann::json(nullptr);
  int code = reproduced ? 0 : ExitCodeFor(Validity::kUnknown);
  if (reproduced) {
    if (Status s = WriteMinimal(kept, limit_ms, hits, tries); !s) {
      out_ << TerminalSafe("error: " + s.error()) << "\n";
      code = kExitRunFailed;
    }
    PrintVerdictLines(kept, limit_ms);
  } else if (!stopped_.empty()) {
    out_ << "stopped before the replay of all " << subject_.windows.size()
         << " faults reproduced: no minimal scenario\n";
  } else {
    out_ << "the replay of all " << subject_.windows.size() << " faults did not show "
         << subject_.kind << " in " << options_.tries << " tries: no minimal scenario\n";
  }
  Status page = WriteFileAtomically(out_dir_ + "/shrink.json", DumpJson(record, 2) + "\n");
  if (page) page = WriteFileAtomically(out_dir_ + "/shrink.html", RenderShrinkPage(record));
  if (!page) {
    out_ << TerminalSafe("error: " + page.error()) << "\n";
    return kExitRunFailed;
  }
  out_ << TerminalSafe("page:    " + out_dir_ + "/shrink.html") << "\n";
  if (reproduced) {
    out_ << TerminalSafe("minimal: " + out_dir_ + "/minimal.json: " + subject_.kind + " in " +
                         std::to_string(hits) + " of " + std::to_string(tries) +
                         " tries (locksmith run --config " + out_dir_ + "/minimal.json)")
         << "\n";
  }
  out_ << "shrink took " << std::llround(ElapsedS()) << " s: " << candidates_.size()
       << " candidates, " << runs_ << " runs\n";
  return code;
}

void Shrinker::PrintVerdictLines(const std::vector<size_t>& kept, int64_t limit_ms) {
  for (size_t i = 0; i < subject_.windows.size(); ++i) {
    const bool keeps = std::find(kept.begin(), kept.end(), i) != kept.end();
    out_ << TerminalSafe(std::string(keeps ? "kept:    " : "removed: ") +
                         WindowText(subject_.windows[i]) + " (window " +
                         std::to_string(subject_.windows[i].window) + ")")
         << "\n";
  }
  out_ << "time limit: " << MsAsSeconds(OriginalLimitMs()) << " -> " << MsAsSeconds(limit_ms) << "\n";
}

Status Shrinker::WriteMinimal(const std::vector<size_t>& kept, int64_t limit_ms, int hits,
                              int tries) {
  auto config = CandidateConfig(subject_, kept, limit_ms, "store",
                                subject_.test_name + "-minimal");
  if (!config) return Error{config.error()};
  config->predicted_verdict = "invalid";
  config->prediction = "Y";
  config->predicted_anomaly = subject_.kind;
  if (config->scenario.empty()) config->scenario = subject_.config.value("scenario", "");
  if (config->scenario.empty()) config->scenario = "shrunk";
  config->description =
      "Shrunk by locksmith shrink from " + subject_.run_dir + " (seed " +
      std::to_string(subject_.seed) + "): " + std::to_string(kept.size()) + " of its " +
      std::to_string(subject_.windows.size()) + " faults kept (windows " +
      WindowNumbers(subject_, kept) + "), time limit " + MsAsSeconds(OriginalLimitMs()) + " -> " +
      MsAsSeconds(limit_ms) + "; " + subject_.kind + " reproduced in " + std::to_string(hits) +
      " of " + std::to_string(tries) + " tries.";
  nlohmann::json j = config->ToJson();
  j.erase("store");  // where the scenario's runs go is its runner's choice
  return WriteFileAtomically(out_dir_ + "/minimal.json", DumpJson(j, 2) + "\n");
}

// OUT, new or empty.
Status PrepareOutDir(const std::string& dir) {
  std::error_code ec;
  if (fs::is_symlink(dir, ec)) return Error{dir + " is a symbolic link: give another --out"};
  if (fs::exists(dir, ec) && !(fs::is_directory(dir, ec) && fs::is_empty(dir, ec))) {
    return Error{dir + " already exists and is not empty: remove it or give another --out"};
  }
  fs::create_directories(dir + "/runs", ec);
  if (ec) return Error{"cannot create " + dir + ": " + ec.message()};
  return OkStatus();
}

}  // namespace

int RunShrink(const ShrinkOptions& options, SignalWatcher& signals, std::ostream& out,
              std::ostream& err, ShrinkTryRunner run_try) {
  auto bad_input = [&err](const std::string& message) {
    err << "locksmith: " << TerminalSafe(message) << "\n";
    return kExitBadInput;
  };
  if (options.tries < 1) return bad_input("--tries must be at least 1");
  if (!(options.resolution_s > 0)) return bad_input("--resolution must be above 0 s");
  auto subject = LoadShrinkSubject(options.run_dir, options.anomaly);
  if (!subject) return bad_input("cannot shrink: " + subject.error());
  const std::string out_dir =
      options.out_dir.empty() ? options.run_dir + "/shrink" : options.out_dir;
  if (Status s = PrepareOutDir(out_dir); !s) return bad_input(s.error());
  if (!run_try) {
    run_try = [&signals](RunConfig config, const std::string& label) {
      return ExecuteRun(std::move(config), signals, DefaultRunModules(), label);
    };
  }
  return Shrinker(std::move(*subject), options, out_dir, signals, out, std::move(run_try)).Run();
}

}  // namespace locksmith
