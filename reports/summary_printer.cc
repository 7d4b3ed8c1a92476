#include "reports/summary_printer.h"

#include <sstream>

#include "base/terminal_text.h"

namespace locksmith {
namespace {

constexpr size_t kAnomaliesShown = 5;

// The history index of an op reference, -1 when there is none.
int64_t IndexOf(const nlohmann::json& op) {
  return op.is_object() ? op.value("index", int64_t{-1}) : int64_t{-1};
}

// The invoke of an [invoke, completion] pair.
int64_t InvokeIndexOf(const nlohmann::json& pair) {
  return pair.is_array() && !pair.empty() ? IndexOf(pair[0]) : int64_t{-1};
}

// " (cache filled by process 4, fill #88)" for an anomaly's filler, if any.
void PrintFiller(std::ostream& out, const nlohmann::json& a) {
  const auto filler = a.value("filler", nlohmann::json());
  if (!filler.is_object()) return;
  out << " (cached by process " << filler["process"] << ", fill #"
      << InvokeIndexOf(filler.value("fill", nlohmann::json())) << ")";
}

// "  double-holder unsafe-grant on lock-0: process 3 (acquire #12) ..."
// (without its newline: the caller escapes the line).
void PrintAnomaly(std::ostream& out, const nlohmann::json& a) {
  out << "  " << a.value("type", "anomaly") << " " << a.value("class", "") << " on "
      << a.value("key", "?") << ":";
  for (const auto& h : a.value("holders", nlohmann::json::array())) {
    out << " process " << h["process"] << " (acquire #" << h["acquire"]["index"] << ")";
  }
  // Resource anomalies: the first two buyers (writers) whose updates overlapped.
  const auto pairs = a.value("overlapping", nlohmann::json::array());
  if (!pairs.empty()) {
    const auto& buyers = pairs[0]["buyers"];
    for (size_t i = 0; i < buyers.size(); ++i) {
      const auto& b = buyers[i];
      out << (i == 0 ? " process " : " and process ") << b["process"] << " (read #"
          << IndexOf(b["read"]) << ", write #" << IndexOf(b["write"]) << ")";
    }
    out << " both read " << buyers[0]["read_value"];
  }
  // Stuck locks: how long the free lock refused everyone, and who crashed in its acquire.
  if (a.contains("stuck_ms")) {
    out << " free yet refused to all for " << a["stuck_ms"] << " ms (lease " << a["lease_ms"]
        << " ms)";
    for (const auto& c : a.value("crashed", nlohmann::json::array())) {
      out << ", process " << c["process"] << " crashed in its acquire #" << c["acquire"]["index"];
    }
  }
  // Cache anomalies: the stale value, and whose write it should have shown.
  if (a.contains("reader") && a.contains("last_write") && a["reader"].is_object()) {
    out << " process " << a["reader"]["process"] << " read " << a["value"] << " (read #"
        << InvokeIndexOf(a["reader"].value("read", nlohmann::json())) << ") after write #"
        << InvokeIndexOf(a["last_write"]) << " by process "
        << a.value("writer", nlohmann::json::object()).value("process", nlohmann::json())
        << " had completed";
    PrintFiller(out, a);
  }
  if (a.contains("cache") && a.value("type", "") == "stale-cache") {
    out << " the cache still holds " << a["cache"] << " where the database holds " << a["value"];
    PrintFiller(out, a);
  }
  if (a.contains("op") && a["op"].is_object()) {
    out << " " << a["op"].value("f", "op") << " #" << a["op"].value("index", -1) << " by process "
        << a["op"]["process"] << " cannot be linearized";
  }
}

// One line of text that may hold keys, values and errors from the history:
// printed with its control characters escaped, so no key can add a line.
void PrintLine(std::ostream& out, const std::string& text) {
  out << TerminalSafe(text) << "\n";
}

}  // namespace

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

void PrintRunSummary(std::ostream& out, const std::string& run_dir, const CheckResult& r,
                     const nlohmann::json& config, const std::string& interrupted,
                     const std::string& error) {
  PrintLine(out, "run:     " + run_dir);
  // A composite's stats hold each checker's result under its name.
  for (const auto& [name, checker] : r.stats.items()) {
    if (!checker.is_object() || !checker.contains("valid")) continue;
    const std::string s = checker.value("summary", std::string());
    PrintLine(out, name + ": " + checker["valid"].dump() + (s.empty() ? "" : " (" + s + ")"));
  }
  size_t shown = 0;
  for (const auto& a : r.anomalies) {
    if (shown++ == kAnomaliesShown) {
      out << "  ... " << r.anomalies.size() - kAnomaliesShown << " more in results.json\n";
      break;
    }
    std::ostringstream line;
    PrintAnomaly(line, a);
    PrintLine(out, line.str());
  }
  if (!interrupted.empty()) PrintLine(out, "interrupted: " + interrupted);
  if (!error.empty()) PrintLine(out, "error:   " + error);
  const char* verdict = r.valid == Validity::kTrue    ? "VALID"
                        : r.valid == Validity::kFalse ? "INVALID"
                                                      : "UNKNOWN";
  for (const auto& warning : r.warnings) PrintLine(out, "warning: " + warning);
  PrintLine(out,
            std::string("verdict: ") + verdict + (r.reason.empty() ? "" : " (" + r.reason + ")"));
  if (auto debate = DebateOutcome(config, r.valid); !debate.is_null()) {
    PrintLine(out, "debate:  scenario " + debate["scenario"].get<std::string>() + " predicts " +
                       debate["predicted"].get<std::string>() + ", this run observed " +
                       debate["observed"].get<std::string>() +
                       (debate["matches"].get<bool>() ? " (as predicted)" : " (NOT as predicted)"));
  }
  PrintLine(out, "report:  " + run_dir + "/report.html");
}

void PrintRunOutcome(std::ostream& out, std::ostream& err, const RunOutcome& outcome) {
  if (outcome.result) {
    PrintRunSummary(out, outcome.run_dir, *outcome.result, outcome.config, outcome.interrupted,
                    outcome.error);
    return;
  }
  if (outcome.run_dir.empty()) {
    if (!outcome.error.empty()) PrintLine(err, "locksmith: " + outcome.error);
    return;
  }
  PrintLine(out, "run:     " + outcome.run_dir);
  if (!outcome.interrupted.empty()) PrintLine(out, "interrupted: " + outcome.interrupted);
  if (!outcome.error.empty()) PrintLine(out, "error:   " + outcome.error);
}

}  // namespace locksmith
