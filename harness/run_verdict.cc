#include "harness/run_verdict.h"

#include <cstdio>

#include "nemesis/nemesis_registry.h"

namespace locksmith {
namespace {

std::string Seconds(double s, const char* format) {
  char buf[32];
  std::snprintf(buf, sizeof buf, format, s);
  return buf;
}

}  // namespace

std::string UnfulfilledRunLine(const nlohmann::json& interruption, double time_limit_s,
                               const FaultLedger* ledger) {
  const std::string progress = ledger != nullptr ? ledger->Progress() : "";
  if (interruption.is_object()) {
    std::string line = "interrupted";
    if (const std::string signal = interruption.value("signal", std::string()); !signal.empty()) {
      line += " by " + signal;
    }
    if (interruption.value("phase", std::string()) == "workload") {
      line += " after " + Seconds(interruption.value("after_s", 0.0), "%.1f") + " s of the " +
              Seconds(time_limit_s, "%g") + " s workload";
      if (!progress.empty()) line += ", " + progress;
    } else {
      line += " before the workload started";
    }
    return line;
  }
  return ledger != nullptr ? ledger->Unfulfilled() : "";
}

std::string HistoryEndLine(const HistoryEnd& end, const std::string& source,
                           bool interruption_known) {
  if (std::string cut = end.CutShort(source); !cut.empty()) return cut;
  const HistoryClosing& closing = *end.closing;
  if (closing.ended == kEndedTimeLimit) return "";
  if (closing.ended == kEndedHung) return closing.detail;
  if (closing.ended == kEndedInterrupted) {
    return interruption_known ? "" : "interrupted " + closing.detail;
  }
  if (closing.ended == kEndedError) return "the workload ended in an error: " + closing.detail;
  return "the history's closing record says the workload ended \"" + closing.ended + "\"";
}

bool ApplyUnfulfilled(CheckResult& result, const std::string& line) {
  if (line.empty() || result.valid == Validity::kFalse) return false;
  result.valid = Validity::kUnknown;
  result.reason = result.reason.empty() ? line : line + "; " + result.reason;
  return true;
}

nlohmann::json LedgerOf(const History& history, const nlohmann::json& extra,
                        std::optional<FaultLedger>& ledger) {
  if (!extra.contains("faults")) return nullptr;
  auto planned = FaultLedger::FromJson(extra["faults"]);
  if (!planned) return extra["faults"];  // kept as it was; no verdict rests on it
  // A re-check takes "nemesis" from a results.json anyone may have edited.
  const auto nemesis = extra.find("nemesis");
  const bool teardown_healed = nemesis == extra.end() || !nemesis->is_object() ||
                               !nemesis->contains("heal_failures") ||
                               (*nemesis)["heal_failures"].empty();
  ledger = std::move(*planned);
  ledger->Observe(history, RegisteredConfirmations(), teardown_healed);
  return ledger->ToJson();
}

}  // namespace locksmith
