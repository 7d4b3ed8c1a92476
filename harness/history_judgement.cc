#include "harness/history_judgement.h"

#include <set>
#include <string>
#include <utility>

#include "checker/availability.h"
#include "harness/run_config.h"
#include "harness/run_modules.h"
#include "history/history_file.h"
#include "history/history_log.h"

namespace locksmith {
namespace {

// A run in which no lock was granted proves nothing (the rule `check FILE`
// applies too). Only acquires count: a resource's init and final reads or a
// client's stats end ok without any lock.
bool GrantsCount(const Op& invoke) { return invoke.f == "acquire"; }

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

}  // namespace

Result<std::unique_ptr<Checker>> RunChecker(const nlohmann::json& config_json) {
  RunConfig config;
  Status s = MergeRunConfigJson(config_json, config);
  if (s) s = ValidateRunConfig(config);
  if (!s) return Error{"config.json: " + s.error()};
  auto workload = DefaultRunModules().make_workload(config);
  if (!workload) return Error{workload.error()};
  auto checkers = (*workload)->Checkers();
  checkers.push_back(std::make_unique<AvailabilityChecker>());
  return std::unique_ptr<Checker>(std::make_unique<CompositeChecker>(std::move(checkers)));
}

Result<JudgedHistory> JudgeWholeHistory(const Checker& checker, OpStream& stream) {
  JudgedHistory judged;
  auto history = ReadAll(stream);
  if (!history) return Error{history.error()};
  judged.history = std::move(*history);
  judged.result = checker.Check(judged.history);
  ApplyNothingToJudge(judged.history, judged.result, GrantsCount);
  judged.ops = static_cast<int64_t>(judged.history.size());
  judged.last_time = judged.history.empty() ? 0 : judged.history.back().time;
  judged.skipped = stream.skipped();
  if (const HistoryEnd* end = stream.end()) judged.end = *end;
  return judged;
}

Result<JudgedHistory> JudgeHistoryInOnePass(const Checker& checker, OpStream& stream,
                                            const std::string& why_sampled) {
  JudgedHistory judged;
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
  // Counted once: a second pass reads them again.
  judged.skipped = stream.skipped();
  if (const HistoryEnd* end = stream.end()) judged.end = *end;
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
  judged.facts["report_sample"] = {
      {"ops", judged.history.size()},
      {"of", judged.ops},
      {"why", why_sampled + ": the verdict read every op; the report and the fault ledger were "
                            "given every nemesis op, the first " +
                  std::to_string(kReportSampleOps) + " client ops and " +
                  std::to_string(kAnomalyNeighbourhood) + " ops either side of each op an "
                  "anomaly names"}};
  return judged;
}

}  // namespace locksmith
