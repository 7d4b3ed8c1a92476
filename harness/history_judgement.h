// Judging a run's history, apart from what is written about it afterwards
// (harness/run_judge.h): RunChecker builds the checkers a run's config.json
// names, JudgeWholeHistory reads a small history whole and judges it from
// memory, JudgeHistoryInOnePass feeds a large one through every checker at
// once (checker/checker.h: the checkers that stream keep only what follows
// the run's keys and processes) and keeps a bounded sample of it for the
// report and the fault ledger. Thread-compatible: one stream per call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "checker/checker.h"
#include "history/history.h"
#include "history/op_stream.h"

namespace locksmith {

// The sample a large history's report is given: every nemesis and service
// op, the first kReportSampleOps client ops, and kAnomalyNeighbourhood ops
// either side of every op an anomaly names.
inline constexpr size_t kReportSampleOps = 200'000;
inline constexpr int64_t kAnomalyNeighbourhood = 100;

struct JudgedHistory {
  CheckResult result;
  History history;  // what the report and the fault ledger are given
  int64_t ops = 0;
  int64_t last_time = 0;  // the last op's
  // results.json's "history" as far as judging knows it ("report_sample").
  nlohmann::json facts = nlohmann::json::object();
  std::vector<SkippedLine> skipped;  // what a lenient read left out
  // What the history says of its end (OpStream::end); empty where it has no say.
  std::optional<HistoryEnd> end;
};

// The checkers of the workload a run's config.json describes, built as its
// run built them, and how available the lock was with faults in force and
// without (whatever the workload).
Result<std::unique_ptr<Checker>> RunChecker(const nlohmann::json& config);

// A small history: read whole, judged and kept whole for the report.
Result<JudgedHistory> JudgeWholeHistory(const Checker& checker, OpStream& stream);

// A large history: every checker in one pass over `stream`, which keeps the
// report's sample as it goes; a second pass (stream.Rewind) only when an
// anomaly names ops past it. `why_sampled` ends results.json's
// "report_sample" reason: what made the history too large to keep whole.
Result<JudgedHistory> JudgeHistoryInOnePass(const Checker& checker, OpStream& stream,
                                            const std::string& why_sampled);

}  // namespace locksmith
