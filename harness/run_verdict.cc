#include "harness/run_verdict.h"

#include <cstdio>

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

bool ApplyUnfulfilled(CheckResult& result, const std::string& line) {
  if (line.empty() || result.valid == Validity::kFalse) return false;
  result.valid = Validity::kUnknown;
  result.reason = result.reason.empty() ? line : line + "; " + result.reason;
  return true;
}

}  // namespace locksmith
