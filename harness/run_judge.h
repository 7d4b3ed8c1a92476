// JudgeAndReport: the verdict on a finished run directory, then
// results.json, report.html and junit.xml. A history of at most
// kWholeReportHistoryBytes as JSON lines (a third of it as history.bin) is
// read whole, judged and reported from memory; a larger one is judged in one
// pass (harness/history_judgement.h), and the report and the fault ledger
// are given a bounded sample of it (results.json's "history":
// {"report_sample"} says so). Thread-compatible: one run directory per call.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "checker/checker.h"
#include "harness/live_judge.h"

namespace locksmith {

// A history.jsonl up to this size (a history.bin up to a third) is read
// whole for the report and the
// fault ledger once judged; a larger one gives them a sample.
inline constexpr uint64_t kWholeReportHistoryBytes = uint64_t{64} << 20;

// Judges run_dir's history (history.bin, or an older run's history.jsonl)
// with the checkers of the config's workload and
// writes results.json, report.html and junit.xml into run_dir. `extra` is
// merged into results.json (run facts such as "interrupted", and the kinds
// of events the service declared, "service_events": a run without them gets
// RegisteredServiceEvents'). The history is
// read by the rules `check FILE` reads it with (a regular file of at most
// `max_history_bytes`; a last line cut short is skipped: a warning, and
// "history": {"skipped_lines"}), and nothing to judge is unknown
// (NothingToJudge), as for `check FILE`. `extra`'s "faults" (the fault
// ledger's plan) gets its outcomes from the history, and a run cut short or
// whose faults did not all happen is unknown unless it found an anomaly
// (harness/run_verdict.h: "unfulfilled" in results.json says why).
// `written`, when given, receives results.json as written (also when
// writing the report after it fails).
// `whole_history_bytes`: the largest history read whole (tests lower it).
// `live`, when given and it judged the history as the run recorded it, gives
// the judgement instead of a pass made now.
Result<CheckResult> JudgeAndReport(const std::string& run_dir, const nlohmann::json& config,
                                   const nlohmann::json& extra, uint64_t max_history_bytes,
                                   nlohmann::json* written = nullptr,
                                   uint64_t whole_history_bytes = kWholeReportHistoryBytes,
                                   LiveJudge* live = nullptr);

// The largest history.bin read whole: the log takes about a third of the
// bytes of the same ops as JSON lines.
constexpr uint64_t WholeHistoryLogBytes(uint64_t whole_history_bytes) {
  return whole_history_bytes / 3;
}

// The kinds of events the service of the run of `config` declares, as
// results.json lists them ("service_events"), from its backend's registry
// entry: for runs written before results.json listed them. Null when the
// backend declares none (or config names no known backend).
nlohmann::json RegisteredServiceEvents(const nlohmann::json& config);

// Why a large history's report has a sample (results.json's "report_sample").
std::string ReportSampleReason();

}  // namespace locksmith
