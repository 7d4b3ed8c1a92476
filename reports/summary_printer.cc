#include "reports/summary_printer.h"

#include <algorithm>
#include <sstream>

#include "base/terminal_text.h"
#include "reports/html_text.h"

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

// "faults:  kill: 3 planned, 3 fired, 3 applied, 3 healed, 3 observed", one
// line per family of the ledger (a family whose faults stall lock holders
// adds ", past lease 1 of 3"), then each scripted step that did not get
// through (never fired, failed, or never observed).
void PrintFaultLedger(std::ostream& out, const nlohmann::json& faults) {
  if (!faults.is_object()) return;
  // results.json may come from anyone: a member of the wrong type reads as absent.
  auto list = [&](const char* key) {
    auto it = faults.find(key);
    return it != faults.end() && it->is_array() ? *it : nlohmann::json::array();
  };
  std::string label = "faults:  ";
  for (const auto& family : list("families")) {
    if (!family.is_object()) continue;
    std::string line = label + FieldText(family, "family") + ":";
    const char* sep = " ";
    for (const char* count : {"planned", "fired", "applied", "healed", "observed"}) {
      line += sep + std::to_string(FieldCount(family, count)) + " " + count;
      sep = ", ";
    }
    // Of the observed stalls of lock holders, those that outlived their lease.
    if (auto past = family.find("past_lease"); past != family.end() && past->is_number()) {
      line += ", past lease " + std::to_string(FieldCount(family, "past_lease")) + " of " +
              std::to_string(FieldCount(family, "observed"));
    }
    PrintLine(out, line);
    label = "         ";
  }
  for (const auto& row : list("rows")) {
    if (!row.is_object() || !row.contains("step")) continue;
    std::string status;
    if (!FieldFlag(row, "fired")) {
      status = "never fired";
    } else if (!FieldFlag(row, "applied")) {
      status = "failed: " + FieldText(row, "error");
    } else if (FieldText(row, "phase") == "begin" && !FieldFlag(row, "observed")) {
      status = "not observed";
    }
    if (status.empty()) continue;
    PrintLine(out, "  step " + FieldText(row, "step") + " (" + FieldText(row, "what") +
                       "): " + status);
  }
}

}  // namespace

bool HasAnomalyOfKind(const nlohmann::json& anomalies, const std::string& kind) {
  if (!anomalies.is_array()) return false;
  return std::any_of(anomalies.begin(), anomalies.end(), [&](const nlohmann::json& a) {
    return a.is_object() && (a.value("class", "") == kind || a.value("type", "") == kind);
  });
}

nlohmann::json DebateOutcome(const nlohmann::json& config, Validity valid,
                             const nlohmann::json& anomalies) {
  const std::string predicted = config.value("prediction", std::string());
  if (predicted.empty()) return nullptr;
  const std::string observed = valid == Validity::kFalse  ? "Y"
                               : valid == Validity::kTrue ? "N"
                                                          : "?";
  const std::string kind = config.value("predicted_anomaly", std::string());
  bool matches = predicted == observed;
  nlohmann::json debate = {{"scenario", config.value("scenario", std::string())},
                           {"predicted", predicted}};
  if (!kind.empty()) {
    debate["predicted_anomaly"] = kind;
    matches = matches && (observed != "Y" || HasAnomalyOfKind(anomalies, kind));
  }
  debate["observed"] = observed;
  debate["matches"] = matches;
  return debate;
}

void PrintRunSummary(std::ostream& out, const std::string& run_dir, const CheckResult& r,
                     const nlohmann::json& config, const std::string& interrupted,
                     const std::string& error, const nlohmann::json& faults) {
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
  PrintFaultLedger(out, faults);
  if (!interrupted.empty()) PrintLine(out, "interrupted: " + interrupted);
  if (!error.empty()) PrintLine(out, "error:   " + error);
  const char* verdict = r.valid == Validity::kTrue    ? "VALID"
                        : r.valid == Validity::kFalse ? "INVALID"
                                                      : "UNKNOWN";
  for (const auto& warning : r.warnings) PrintLine(out, "warning: " + warning);
  PrintLine(out,
            std::string("verdict: ") + verdict + (r.reason.empty() ? "" : " (" + r.reason + ")"));
  if (auto debate = DebateOutcome(config, r.valid, r.anomalies); !debate.is_null()) {
    const std::string kind = debate.value("predicted_anomaly", std::string());
    const std::string observed = debate["observed"].get<std::string>();
    std::string line = "debate:  scenario " + debate["scenario"].get<std::string>() +
                       " predicts " + debate["predicted"].get<std::string>() +
                       (kind.empty() ? "" : " (" + kind + ")") + ", this run observed " + observed;
    if (observed == "?") {
      line += " (an unknown verdict: nothing to compare)";
    } else if (debate["matches"].get<bool>()) {
      line += " (as predicted)";
    } else {
      line += observed == "Y" && !kind.empty() ? " (NOT as predicted: no " + kind + ")"
                                               : std::string(" (NOT as predicted)");
    }
    PrintLine(out, line);
  }
  PrintLine(out, "report:  " + run_dir + "/report.html");
}

void PrintRunOutcome(std::ostream& out, std::ostream& err, const RunOutcome& outcome) {
  if (outcome.result) {
    PrintRunSummary(out, outcome.run_dir, *outcome.result, outcome.config, outcome.interrupted,
                    outcome.error, outcome.faults);
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
