#include "harness/run_judge.h"

#include <sys/stat.h>

#include <optional>

#include "backends/backend_registry.h"
#include "base/atomic_file.h"
#include "base/input_file.h"
#include "harness/history_judgement.h"
#include "harness/run_verdict.h"
#include "history/history_file.h"
#include "history/history_log.h"
#include "history/prefetch_op_stream.h"
#include "nemesis/fault_descriptions.h"
#include "nemesis/fault_ledger.h"
#include "reports/html_report.h"
#include "reports/junit_report.h"
#include "reports/summary_printer.h"

namespace locksmith {
namespace {

// The ops after a failed history write were never recorded: what there is
// can still prove an anomaly, never that the run was valid.
void MarkHistoryIncomplete(CheckResult& result, const std::string& write_error) {
  const std::string line = "history incomplete: " + write_error;
  if (result.valid == Validity::kFalse) {
    result.warnings.push_back(line);
    return;
  }
  result.valid = Validity::kUnknown;
  result.reason = line;
}

// The size of the history, refused past `max_bytes` in the words `check
// FILE` uses; 0 when it cannot be read (opening it says why).
Result<uint64_t> HistorySize(const std::string& path, uint64_t max_bytes) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return uint64_t{0};
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size > max_bytes) {
    return Error{path + " is " + ByteSizeText(size) + "; at most " + ByteSizeText(max_bytes) +
                 " are allowed (" + std::string(kRaiseHistoryLimit) + ")"};
  }
  return size;
}

// The run's facts `extra`, with the kinds of events its service declared:
// for a run written before results.json listed them (checked again now),
// those its backend declares.
nlohmann::json WithServiceEvents(const nlohmann::json& extra, const nlohmann::json& config) {
  if (extra.contains("service_events")) return extra;
  nlohmann::json declared = RegisteredServiceEvents(config);
  if (declared.is_null()) return extra;
  nlohmann::json with = extra;
  with["service_events"] = std::move(declared);
  return with;
}

}  // namespace

nlohmann::json RegisteredServiceEvents(const nlohmann::json& config) {
  if (!config.is_object()) return nullptr;
  auto backend = config.find("backend");
  if (backend == config.end() || !backend->is_string()) return nullptr;
  std::optional<ServiceEventKinds> kinds = BackendServiceEvents(backend->get<std::string>());
  return kinds ? kinds->ToJson() : nlohmann::json();
}

std::string ReportSampleReason() {
  return "the history is larger than " + ByteSizeText(kWholeReportHistoryBytes);
}

Result<CheckResult> JudgeAndReport(const std::string& run_dir, const nlohmann::json& config,
                                   const nlohmann::json& extra, uint64_t max_history_bytes,
                                   nlohmann::json* written, uint64_t whole_history_bytes,
                                   LiveJudge* live) {
  // The rules `check FILE` reads by: the same errors ("FILE:LINE: reason"),
  // the same tolerance of a last line cut short by a crash, said in a warning.
  const std::string history_file = RunHistoryFile(run_dir);
  auto bytes = HistorySize(history_file, max_history_bytes);
  if (!bytes) return Error{bytes.error()};
  const bool log = history_file.ends_with(".bin");
  auto judged = [&]() -> Result<JudgedHistory> {
    if (live != nullptr) {
      if (auto judged_live = live->Take()) return std::move(*judged_live);
    }
    auto checker = RunChecker(config);
    if (!checker) return Error{checker.error()};
    auto stream = OpenHistoryStream(history_file);
    if (!stream) return Error{stream.error()};
    if (*bytes <= (log ? WholeHistoryLogBytes(whole_history_bytes) : whole_history_bytes)) {
      return JudgeWholeHistory(**checker, **stream);
    }
    // Decoding runs on a core of its own beside the checkers.
    PrefetchOpStream prefetch(**stream);
    return JudgeHistoryInOnePass(**checker, prefetch, ReportSampleReason());
  }();
  if (!judged) return Error{judged.error()};
  CheckResult& result = judged->result;
  const History* history = &judged->history;
  nlohmann::json& history_facts = judged->facts;
  const std::vector<SkippedLine>& skipped = judged->skipped;
  history_facts["skipped_lines"] = skipped.size();
  if (const auto it = extra.find("history_error"); it != extra.end() && it->is_string()) {
    MarkHistoryIncomplete(result, it->get<std::string>());
  }
  for (auto& line : DescribeSkippedLines(history_file, skipped)) result.warnings.push_back(line);
  // A history must say that it is whole: a run's log closes with how the
  // workload ended and what it wrote (a history.jsonl put here by hand, or
  // by a run before the log, has no say).
  if (const std::optional<HistoryEnd>& end = judged->end) {
    history_facts["whole"] = end->CutShort(history_file).empty();
    if (end->closing) history_facts["closing"] = end->closing->ToJson();
    const std::string line = HistoryEndLine(*end, history_file, extra.contains("interruption"));
    // A failed write already made it unknown, saying why it is incomplete.
    if (!line.empty() && !extra.contains("history_error") && !ApplyUnfulfilled(result, line)) {
      result.warnings.push_back(line);
    }
  }
  // A run cut short, or whose faults did not all happen, vouches for nothing.
  std::optional<FaultLedger> ledger;
  const nlohmann::json faults = LedgerOf(*history, extra, ledger);
  const std::string unfulfilled =
      UnfulfilledRunLine(extra.value("interruption", nlohmann::json()),
                         config.value("time_limit_s", 0.0), ledger ? &*ledger : nullptr);
  const bool unknown_for_it = ApplyUnfulfilled(result, unfulfilled);
  nlohmann::json results = result.ToJson();
  results["history"] = history_facts;
  // How each fault family looks and what each fault did, in words: the
  // reports draw the faults from this alone.
  results["fault_descriptions"] = DescribeFaults(*history);
  const nlohmann::json facts = WithServiceEvents(extra, config);
  for (const auto& [k, v] : facts.items()) results[k] = v;
  if (!faults.is_null()) results["faults"] = faults;
  if (unknown_for_it) results["unfulfilled"] = unfulfilled;
  if (auto debate = DebateOutcome(config, result.valid, result.anomalies); !debate.is_null()) {
    results["debate"] = debate;
  }
  if (Status s = WriteFileAtomically(run_dir + "/results.json", results.dump(2) + "\n"); !s) {
    return Error{s.error()};
  }
  if (written != nullptr) *written = results;  // the verdict stands, whatever fails after
  const std::string report = run_dir + "/report.html";
  if (Status s = WriteHtmlReport(*history, results, config, report); !s) {
    return Error{"report: " + s.error()};
  }
  const double duration_s = static_cast<double>(judged->last_time) / 1e9;
  if (Status s = WriteJunitXml(results, config, run_dir + "/junit.xml", duration_s); !s) {
    return Error{"junit: " + s.error()};
  }
  return std::move(result);
}

}  // namespace locksmith
