// ReportModel: the history boiled down to what report.html draws, built once
// in C++ so the page opens instantly even for a million ops: one row per
// operation (invoke + completion) in columnar arrays sorted by invoke time,
// lock holds per key, nemesis fault intervals, and pre-aggregated plot data
// (throughput and latency quantiles per time bucket, a latency scatter that
// becomes a density grid past a few thousand points). AppendJson writes it as
// the compact JSON blob the page's script decodes (format: see AppendJson).
// Client processes share a lane when their lives do not overlap (see Build).
// Built once, then read-only; safe to read from several threads.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/history.h"

namespace locksmith {

// True for an anomaly's op reference: an object with an integer "index" and
// string "type" and "f" (checker::OpRef).
bool IsOpRef(const nlohmann::json& j);
// Every op index referenced anywhere inside `j` (any depth), so anomalies
// from checkers written later are covered without knowing their fields.
void CollectOpIndices(const nlohmann::json& j, std::set<int64_t>* out);

// Outcome of a row: how its invoke completed.
enum class OpOutcome : uint8_t { kOk = 0, kFail = 1, kInfo = 2, kPending = 3 };

class ReportModel {
 public:
  struct Options {
    // Op values (tokens, fences, ...) go into the page only up to this many
    // rows, to keep the file small; nemesis ops and ops named by an anomaly
    // always keep theirs. The rest say "see history.jsonl".
    size_t max_values = 20000;
    int plot_buckets = 200;
    int scatter_x_bins = 400;
    int scatter_y_bins = 80;
    // Below this many completed client ops the scatter holds exact points.
    size_t max_raw_scatter_points = 5000;
  };

  struct LatencySummary {
    int64_t count = 0;
    std::array<int64_t, 3> by_outcome{};  // ok, fail, info
    double mean_ns = 0;
    int64_t p50 = 0, p90 = 0, p99 = 0, p999 = 0, max = 0;
  };

  static ReportModel Build(const History& history, const nlohmann::json& results,
                           const Options& options);
  static ReportModel Build(const History& history, const nlohmann::json& results) {
    return Build(history, results, Options());
  }

  // Appends the model as JSON. Not yet safe inside <script>: pass the result
  // through EscapeJsonForScript. Columns of "ops" are parallel arrays; "s"
  // (start time) and "i" (invoke index) are delta-encoded, "d" is the
  // duration (-1 when the op never completed), "ci" is completion index
  // minus invoke index (-1: none).
  void AppendJson(std::string* out) const;

  // Op counts by f: [invoke, ok, fail, info] (client and nemesis ops).
  const std::map<std::string, std::array<int64_t, 4>>& counts() const { return counts_; }
  // Latency of completed client ops by f, all outcomes.
  const std::map<std::string, LatencySummary>& latency() const { return latency_; }
  int64_t end_time() const { return end_time_; }
  size_t row_count() const { return start_.size(); }
  size_t hold_count() const { return hold_start_.size(); }
  size_t fault_count() const { return faults_.size(); }

 private:
  struct Fault {
    std::string f;       // the op that began it, e.g. "kill"
    std::string family;  // its nemesis family
    int64_t start = 0;
    int64_t end = 0;
    bool open = false;  // never healed: shaded to the end of the run
    std::string value;
  };

  int64_t end_time_ = 0;
  std::vector<std::string> lane_labels_;
  std::vector<int64_t> lane_process_;  // first process of each lane
  // Which process ran in which lane from when: sorted by lane, then start.
  std::vector<int32_t> segment_lane_;
  std::vector<int64_t> segment_process_, segment_start_;
  std::vector<std::string> fs_, keys_, errors_;

  // Rows, sorted by start.
  std::vector<int64_t> index_, completion_index_, start_, duration_;
  std::vector<int32_t> lane_, f_, key_, error_;
  std::vector<uint8_t> outcome_;
  std::vector<int64_t> value_rows_;
  std::vector<std::string> values_;
  bool values_truncated_ = false;

  std::vector<int32_t> hold_key_, hold_lane_;
  std::vector<int64_t> hold_process_;
  std::vector<int64_t> hold_start_, hold_end_, hold_expiry_, hold_acquire_index_;
  std::vector<uint8_t> hold_open_;

  std::vector<Fault> faults_;

  std::map<std::string, std::array<int64_t, 4>> counts_;
  std::map<std::string, LatencySummary> latency_;
  nlohmann::json plots_;
};

}  // namespace locksmith
