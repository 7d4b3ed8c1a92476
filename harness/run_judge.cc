#include "harness/run_judge.h"

#include <sys/stat.h>

#include <optional>
#include <set>

#include "base/atomic_file.h"
#include "base/input_file.h"
#include "checker/availability.h"
#include "checker/history_file.h"
#include "checker/history_log.h"
#include "checker/op_stream.h"
#include "checker/prefetch_op_stream.h"
#include "harness/run_modules.h"
#include "harness/run_verdict.h"
#include "nemesis/fault_descriptions.h"
#include "nemesis/fault_ledger.h"
#include "reports/html_report.h"
#include "reports/junit_report.h"
#include "reports/summary_printer.h"

namespace locksmith {
namespace {

// The workload a config.json describes, built as its run built it: its
// checkers judge with the run's own parameters.
Result<std::unique_ptr<Workload>> WorkloadFromConfig(const nlohmann::json& config_json) {
  RunConfig config;
  Status s = MergeRunConfigJson(config_json, config);
  if (s) s = ValidateRunConfig(config);
  if (!s) return Error{"config.json: " + s.error()};
  return DefaultRunModules().make_workload(config);
}

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

struct Judged {
  CheckResult result;
  History history;  // what the report and the fault ledger are given
  int64_t ops = 0;
  int64_t last_time = 0;  // the last op's
};

// A run in which no lock was granted proves nothing (the rule `check FILE`
// applies too). Only acquires count: a resource's init and final reads or a
// client's stats end ok without any lock.
bool GrantsCount(const Op& invoke) { return invoke.f == "acquire"; }

// A small history: read whole, judged and reported from memory.
Result<Judged> JudgeWhole(const Checker& checker, OpStream& stream) {
  Judged judged;
  auto history = ReadAll(stream);
  if (!history) return Error{history.error()};
  judged.history = std::move(*history);
  judged.result = checker.Check(judged.history);
  ApplyNothingToJudge(judged.history, judged.result, GrantsCount);
  judged.ops = static_cast<int64_t>(judged.history.size());
  judged.last_time = judged.history.empty() ? 0 : judged.history.back().time;
  return judged;
}

// The index of every op an anomaly names (its "ops", at any depth).
void CollectAnomalyOps(const nlohmann::json& j, std::set<int64_t>& indices) {
  if (j.is_object()) {
    if (auto ops = j.find("ops"); ops != j.end() && ops->is_array()) {
      for (const auto& op : *ops) {
        if (op.is_object() && op.contains("index") && op["index"].is_number_integer()) {
          indices.insert(op["index"].get<int64_t>());
        }
      }
    }
  }
  if (j.is_structured()) {
    for (const auto& item : j) CollectAnomalyOps(item, indices);
  }
}

// Keeps the report's sample of a large history (see kReportSampleOps),
// encoded as the history log encodes ops (some 50 bytes each rather than
// some 500 as ops), so that it costs little while the checkers judge; ops()
// decodes it once they are done.
class ReportSample {
 public:
  explicit ReportSample(std::set<int64_t> anomaly_ops = {})
      : anomaly_ops_(std::move(anomaly_ops)), records_(kHistoryLogMagic) {}
  void Observe(const Op& op) {
    const bool early = op.is_client() && client_ops_++ < kReportSampleOps;
    if (early) last_early_index_ = op.index;
    if (!op.is_client() || early || NearAnomaly(op.index)) encoder_.Encode(op, &records_);
  }
  // Whether the ops `anomaly_ops` name, and their neighbourhoods, are in.
  bool Covers(const std::set<int64_t>& anomaly_ops) const {
    return anomaly_ops.empty() || client_ops_ <= kReportSampleOps ||
           *anomaly_ops.rbegin() + kAnomalyNeighbourhood <= last_early_index_;
  }
  // The sample's ops; the records are gone after.
  Result<History> ops() {
    auto stream = HistoryLogStream::FromBytes(std::move(records_), "the report's sample", false);
    records_.clear();
    if (!stream) return Error{stream.error()};
    return ReadAll(**stream);
  }

 private:
  bool NearAnomaly(int64_t index) const {
    auto it = anomaly_ops_.lower_bound(index - kAnomalyNeighbourhood);
    return it != anomaly_ops_.end() && *it <= index + kAnomalyNeighbourhood;
  }

  const std::set<int64_t> anomaly_ops_;
  size_t client_ops_ = 0;
  int64_t last_early_index_ = -1;
  HistoryLogEncoder encoder_;
  std::string records_;
};

// Every op of `stream` into `observe`; a malformed history is an error.
template <typename Observe>
Status EachOp(OpStream& stream, Observe observe) {
  Op op;
  while (true) {
    auto more = stream.Next(&op);
    if (!more) return Error{more.error()};
    if (!*more) return OkStatus();
    observe(op);
  }
}

// A large history: every checker in one pass over the stream, which keeps
// the report's sample as it goes; a second pass only when an anomaly names
// ops past it.
Result<Judged> JudgeStreamed(const Checker& checker, OpStream& stream,
                             nlohmann::json& history_facts) {
  Judged judged;
  std::unique_ptr<CheckPass> pass = checker.Start();
  NothingToJudgeTracker nothing(GrantsCount);
  ReportSample sample;
  Status read = EachOp(stream, [&](Op& op) {
    nothing.Observe(op);
    sample.Observe(op);
    ++judged.ops;
    judged.last_time = op.time;
    pass->Take(std::move(op));
  });
  if (!read) return Error{read.error()};
  judged.result = pass->Finish();
  nothing.Apply(judged.result);
  std::set<int64_t> anomaly_ops;
  CollectAnomalyOps(judged.result.anomalies, anomaly_ops);
  Result<History> sampled = Error{""};
  if (sample.Covers(anomaly_ops)) {
    sampled = sample.ops();
  } else {
    ReportSample again(std::move(anomaly_ops));
    if (Status s = stream.Rewind(); !s) return Error{s.error()};
    if (Status s = EachOp(stream, [&](const Op& op) { again.Observe(op); }); !s) {
      return Error{s.error()};
    }
    sampled = again.ops();
  }
  if (!sampled) return Error{sampled.error()};
  judged.history = std::move(*sampled);
  history_facts["report_sample"] = {
      {"ops", judged.history.size()},
      {"of", judged.ops},
      {"why", "the history is larger than " + ByteSizeText(kWholeReportHistoryBytes) +
                  ": the verdict read every op; the report and the fault ledger were given "
                  "every nemesis op, the first " +
                  std::to_string(kReportSampleOps) + " client ops and " +
                  std::to_string(kAnomalyNeighbourhood) + " ops either side of each op an "
                  "anomaly names"}};
  return judged;
}

}  // namespace

Result<CheckResult> JudgeAndReport(const std::string& run_dir, const nlohmann::json& config,
                                   const nlohmann::json& extra, uint64_t max_history_bytes,
                                   nlohmann::json* written, uint64_t whole_history_bytes) {
  auto workload = WorkloadFromConfig(config);
  if (!workload) return Error{workload.error()};
  // The rules `check FILE` reads by: the same errors ("FILE:LINE: reason"),
  // the same tolerance of a last line cut short by a crash, said in a warning.
  const std::string history_file = RunHistoryFile(run_dir);
  auto bytes = HistorySize(history_file, max_history_bytes);
  if (!bytes) return Error{bytes.error()};
  auto stream = OpenHistoryStream(history_file);
  if (!stream) return Error{stream.error()};
  // Every workload's own checkers, and how available the lock was with
  // faults in force and without (whatever the workload).
  auto checkers = (*workload)->Checkers();
  checkers.push_back(std::make_unique<AvailabilityChecker>());
  const CompositeChecker checker(std::move(checkers));
  nlohmann::json history_facts = nlohmann::json::object();
  // history.bin takes about a third of the bytes of the same ops in JSON.
  const bool log = history_file.ends_with(".bin");
  auto judged = [&] {
    if (*bytes <= (log ? whole_history_bytes / 3 : whole_history_bytes)) {
      return JudgeWhole(checker, **stream);
    }
    // Decoding runs on a core of its own beside the checkers.
    PrefetchOpStream prefetch(**stream);
    return JudgeStreamed(checker, prefetch, history_facts);
  }();
  if (!judged) return Error{judged.error()};
  CheckResult& result = judged->result;
  const History* history = &judged->history;
  // The lines a lenient read left out, counted once (a second pass reads
  // them again).
  std::vector<SkippedLine> skipped = (*stream)->skipped();
  history_facts["skipped_lines"] = skipped.size();
  if (const auto it = extra.find("history_error"); it != extra.end() && it->is_string()) {
    MarkHistoryIncomplete(result, it->get<std::string>());
  }
  for (auto& line : DescribeSkippedLines(history_file, skipped)) result.warnings.push_back(line);
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
  for (const auto& [k, v] : extra.items()) results[k] = v;
  if (!faults.is_null()) results["faults"] = faults;
  if (unknown_for_it) results["unfulfilled"] = unfulfilled;
  if (auto debate = DebateOutcome(config, result.valid, result.anomalies); !debate.is_null()) {
    results["debate"] = debate;
  }
  if (Status s = WriteFileAtomically(run_dir + "/results.json", results.dump(2) + "\n"); !s) {
    return Error{s.error()};
  }
  const std::string report = run_dir + "/report.html";
  if (Status s = WriteHtmlReport(*history, results, config, report); !s) {
    return Error{"report: " + s.error()};
  }
  const double duration_s = static_cast<double>(judged->last_time) / 1e9;
  if (Status s = WriteJunitXml(results, config, run_dir + "/junit.xml", duration_s); !s) {
    return Error{"junit: " + s.error()};
  }
  if (written != nullptr) *written = std::move(results);
  return std::move(result);
}

}  // namespace locksmith
