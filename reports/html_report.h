// The per-run HTML report: one self-contained report.html (inline CSS, JS and
// data; no network fetches, so CI artifacts open offline) with the verdict,
// run facts, per-checker results, the anomalies with their ops, a zoomable
// canvas timeline of every op (one lane per process, a nemesis lane, fault
// intervals shaded, lock holds per key) and latency / throughput plots.
// The ops are embedded as packed tables in a JSON blob (see ReportModel) and
// drawn on <canvas>, so a million-op history costs no DOM elements per op.
// Free functions; thread-safe (no shared state).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "base/limits.h"
#include "base/result.h"
#include "history/history.h"
#include "reports/report_model.h"

namespace locksmith {

struct HtmlReportOptions {
  ReportModel::Options model;
  // Anomalies rendered in full; the rest are counted and left to results.json.
  size_t max_anomalies = 500;
  // Of those, the ones in the page's markup; the script adds the others
  // after its first frame (their markup travels as text until then).
  size_t inline_anomalies = 20;
  // The largest history WriteHtmlReport(run_dir) reads (it is held in
  // memory whole).
  uint64_t max_history_bytes = kDefaultMaxHistoryBytes;
  // For results.json written before it carried "fault_descriptions" (see
  // reports/described_faults.h): what to describe the history's faults
  // with instead; unset, such faults get neutral lanes and their ops' names.
  std::function<nlohmann::json(const History&)> describe_faults;
  // For results.json written before it carried "service_events" (see
  // reports/declared_events.h): the kinds of events the service of the run
  // of `config` declares (null when none); unset, such a run's service
  // events are drawn as undeclared ones.
  std::function<nlohmann::json(const nlohmann::json& config)> declare_service_events;
};

// Reads run_dir's history (RunHistoryFile), results.json and config.json and writes
// run_dir/report.html. A missing or malformed results.json or history is an
// error; a missing config.json only leaves the run facts blank.
Status WriteHtmlReport(const std::string& run_dir);
Status WriteHtmlReport(const std::string& run_dir, const HtmlReportOptions& options);

// In memory: `results` is CheckResult::ToJson() output, `config` the resolved
// config (null or {} when unknown).
Status WriteHtmlReport(const History& history, const nlohmann::json& results,
                       const nlohmann::json& config, const std::string& output_path,
                       const HtmlReportOptions& options = HtmlReportOptions());
Result<std::string> RenderHtmlReport(const History& history, const nlohmann::json& results,
                                     const nlohmann::json& config,
                                     const HtmlReportOptions& options = HtmlReportOptions());

}  // namespace locksmith
