#include "checker/check_file.h"

#include <cstdio>

#include "checker/history_file.h"
#include "checker/linearizability_checker.h"
#include "checker/value_table.h"

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

}  // namespace

Result<CheckResult> CheckHistoryFile(const std::string& path,
                                     const LinearizabilityOptions& options) {
  if (auto valid = ValidateLinearizabilityOptions(options); !valid) {
    return Error{valid.error()};
  }
  auto history = LoadHistoryFile(path, options.format);
  if (!history) return Error{history.error()};
  return CheckLinearizable(*history, options);
}

std::string FormatLinearizabilityVerdict(const CheckResult& result) {
  std::string out;
  const std::string summary = Summary(result.stats);
  switch (result.valid) {
    case Validity::kTrue: out = "valid: true (linearizable)"; break;
    case Validity::kFalse: out = "valid: false (not linearizable)"; break;
    case Validity::kUnknown: out = "valid: unknown (" + result.reason + ")"; break;
  }
  if (!summary.empty()) out += "\n  " + summary;
  out += "\n";
  for (const auto& anomaly : result.anomalies) {
    if (anomaly.value("type", std::string()) != "nonlinearizable") continue;
    const std::string key = anomaly.value("key", std::string());
    out += "\n" + (key.empty() ? std::string("history") : "key " + key) +
           ": this op cannot be linearized\n";
    out += "    " + OpLine(anomaly["op"]) + "\n";
    const size_t length = anomaly.value("prefix_length", size_t{0});
    out += "  after the longest linearizable prefix of " + std::to_string(length) +
           " op(s), state " + anomaly.value("state", std::string("?")) + "\n";
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
      out += "    " + OpLine(prefix[i]) + "\n";
    }
  }
  return out;
}

std::unique_ptr<Checker> MakeLinearizabilityChecker(const LinearizabilityOptions& options) {
  return std::make_unique<LinearizabilityChecker>(options);
}

}  // namespace locksmith
