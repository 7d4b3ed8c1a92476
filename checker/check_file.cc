#include "checker/check_file.h"

#include <cstdio>

#include "base/terminal_text.h"
#include "checker/linearizability_checker.h"
#include "checker/value_table.h"
#include "history/history_file.h"

namespace locksmith {
namespace {

// The verdict shows this many prefix ops; the JSON result holds more.
constexpr size_t kPrefixLinesShown = 10;

std::string ProcessText(const nlohmann::json& process) {
  return process.is_string() ? process.get<std::string>()
                             : std::to_string(process.get<int64_t>());
}

std::string OpLine(const nlohmann::json& ref) {
  // Appends rather than operator+ chains: GCC 12 at -O3 reports a bogus
  // -Wrestrict on "literal" + std::string&&.
  std::string line = "process ";
  line += ProcessText(ref.value("process", nlohmann::json(0)));
  line += ' ';
  line += ref.value("type", std::string("?"));
  line += ' ';
  line += ref.value("f", std::string("?"));
  line += ' ';
  line += DescribeValue(ref.value("value", nlohmann::json()));
  line += "  (invoke index " + std::to_string(ref.value("invoke_index", int64_t{-1})) +
          ", completion index " + std::to_string(ref.value("index", int64_t{-1})) + ")";
  return line;
}

std::string Seconds(double s) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.3f", s);
  return buffer;
}

std::string Summary(const nlohmann::json& stats) {
  if (!stats.contains("model")) return "";
  return "model " + stats.value("model", std::string()) + "; " +
         std::to_string(stats.value("ops", int64_t{0})) + " ops in " +
         std::to_string(stats.value("partitions", int64_t{0})) + " partition(s), " +
         std::to_string(stats.value("pending_ops", int64_t{0})) + " pending; " +
         std::to_string(stats.value("states_explored", uint64_t{0})) + " states explored in " +
         Seconds(stats.value("time_s", 0.0)) + " s";
}

// What the lease rule did, when there were failed releases for it to act on.
std::string LeasesLine(const nlohmann::json& stats) {
  const nlohmann::json leases = stats.value("leases", nlohmann::json::object());
  const int64_t failed = leases.value("failed_releases", int64_t{0});
  if (failed == 0) return "";
  const std::string rule = leases.value("rule", std::string("auto"));
  const std::string n = std::to_string(failed) + " failed release(s)";
  if (leases.value("applied", false)) {
    return "leases: " + n + " counted as leases that expire at an unknown later time (" +
           (rule == "on" ? std::string("--leases on") : "the history records leases") +
           "; --leases off judges them as still held)";
  }
  return "leases: " + n + " judged as still held (" +
         (rule == "off" ? std::string("--leases off")
                        : "the history records no lease_ms / validity_ms") +
         "; --leases on if the lock frees itself when a lease expires)";
}

// The partitions left unsearched once the verdict was known: a check that
// did not run shows.
std::string NotSearchedLine(const nlohmann::json& stats) {
  const int64_t stopped = stats.value("partitions_not_searched", int64_t{0});
  if (stopped == 0) return "";
  std::string keys;
  for (const auto& key : stats.value("keys_not_searched", nlohmann::json::array())) {
    if (key.is_string()) keys += (keys.empty() ? "" : ", ") + key.get<std::string>();
  }
  const int64_t named = static_cast<int64_t>(
      stats.value("keys_not_searched", nlohmann::json::array()).size());
  if (named < stopped) keys += ", ...";
  return std::to_string(stopped) +
         " partition(s) not searched, stopped at the first refuted one (keys " + keys +
         "); --all-anomalies searches every one";
}

}  // namespace

Result<CheckResult> CheckHistoryFile(const std::string& path,
                                     const LinearizabilityOptions& options) {
  if (auto valid = ValidateLinearizabilityOptions(options); !valid) {
    return Error{valid.error()};
  }
  std::vector<SkippedLine> skipped;
  auto history = LoadHistoryFile(path, options.format, &skipped, options.max_history_bytes);
  if (!history) return Error{history.error()};
  auto result = CheckLinearizable(*history, options);
  if (!result) return result;
  result->stats["skipped_lines"] = skipped.size();
  for (auto& line : DescribeSkippedLines(path, skipped)) result->warnings.push_back(line);
  return result;
}

std::string FormatLinearizabilityVerdict(const CheckResult& result) {
  std::string out;
  const std::string summary = Summary(result.stats);
  switch (result.valid) {
    case Validity::kTrue: out = "valid: true (linearizable)"; break;
    case Validity::kFalse: out = "valid: false (not linearizable)"; break;
    case Validity::kUnknown: out = "valid: unknown (" + TerminalSafe(result.reason) + ")"; break;
  }
  if (!summary.empty()) out += "\n  " + summary;
  if (std::string leases = LeasesLine(result.stats); !leases.empty()) out += "\n  " + leases;
  if (std::string stopped = NotSearchedLine(result.stats); !stopped.empty()) {
    out += "\n  " + TerminalSafe(stopped);
  }
  for (const auto& warning : result.warnings) out += "\n  warning: " + TerminalSafe(warning);
  out += "\n";
  for (const auto& anomaly : result.anomalies) {
    if (anomaly.value("type", std::string()) != "nonlinearizable") continue;
    const std::string key = anomaly.value("key", std::string());
    out += "\n" + (key.empty() ? std::string("history") : "key " + TerminalSafe(key)) +
           ": this op cannot be linearized\n";
    out += "    " + TerminalSafe(OpLine(anomaly["op"])) + "\n";
    const size_t length = anomaly.value("prefix_length", size_t{0});
    out += "  after the longest linearizable prefix of " + std::to_string(length) +
           " op(s), state " + TerminalSafe(anomaly.value("state", std::string("?"))) + "\n";
    if (anomaly.value("proof", std::string()) == "window") {
      const auto& window = anomaly["window"];
      out += "  (shown on a window alone: the ops completing between index " +
             std::to_string(window.value("from_index", int64_t{0})) + " and " +
             std::to_string(window.value("to_index", int64_t{0})) +
             " have no linearization from any of the " +
             std::to_string(window.value("start_states", size_t{0})) +
             " states the model can be in; the prefix starts in the window)\n";
    }
    const auto& prefix = anomaly["prefix"];
    const size_t shown = std::min(prefix.size(), kPrefixLinesShown);
    if (shown < length) {
      out += "    ... " + std::to_string(length - shown) + " earlier op(s)\n";
    }
    for (size_t i = prefix.size() - shown; i < prefix.size(); ++i) {
      out += "    " + TerminalSafe(OpLine(prefix[i])) + "\n";
    }
  }
  return out;
}

std::unique_ptr<Checker> MakeLinearizabilityChecker(const LinearizabilityOptions& options) {
  return std::make_unique<LinearizabilityChecker>(options);
}

}  // namespace locksmith
