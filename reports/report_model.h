// ReportModel: the history boiled down to what report.html draws, built once
// in C++ so the page opens instantly even for a million ops: one row per
// operation (invoke + completion) in columnar arrays sorted by invoke time,
// lock holds per key, nemesis fault intervals, and pre-aggregated plot data
// (throughput and latency quantiles per time bucket, a latency scatter that
// becomes a density grid past a few thousand points). AppendJson writes it as
// the compact JSON blob the page's script decodes (format: see AppendJson).
// Client processes share a lane when their lives do not overlap (see Build).
// Faults are told for people: each with its family's lane and a short label
// (who was cut from whom, which node's clock moved how far, which holder was
// paused), point events beside them (Sentinel promotions, locks a client
// was told it lost), clock offsets per node as the clock nemesis observed
// them, and the resource's reads and writes (inventory, counter). StoryOf
// turns an anomaly into a story: its holds with their lease ends, the
// overlap, and the fault that explains it (ExplainAt).
// Built once, then read-only; safe to read from several threads.
#pragma once

#include <array>
#include <utility>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
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

// A fault window, or a point event (no duration), as the report tells it.
struct FaultView {
  std::string f;        // the op that began it, e.g. "kill", "+switch-master"
  std::string family;   // its lane: the nemesis family, "promotion" or "lock-lost"
  int64_t window = -1;  // the run's window number (-1 for a point event)
  int64_t start = 0;
  int64_t end = 0;
  bool open = false;   // never healed: shaded to the end of the run
  bool point = false;  // an event at `start`
  bool effective = true;  // false: its begin op failed and hit nothing
  std::string value;   // the op's value (JSON text)
  std::string label;   // for people: "kill n1", "clock-bump n3 +10 s", ...
  int64_t process = -1;  // the client it hit (client-pause, client-crash, lock-lost)
};

// Short text for a fault's begin op: `value` is its completion's value when
// it has one, else the invoke's; `error` the completion's error.
std::string DescribeFault(const std::string& f, const std::string& family,
                          const nlohmann::json& value, const std::string& error);
// A partition's grudge ({"n1": ["c5"], "c5": ["n1"]}: host -> hosts it
// drops) as text: the islands of nodes, then which clients were cut from
// which nodes ("n1 n2 | n3; c6 cut from n1 n2; c0-c5 c7-c9 cut from n3").
// One-way cuts read "a drops b".
std::string DescribePartition(const nlohmann::json& grudge);
// "+10 s", "-250 ms", "+1.5 ms": a clock offset with its sign.
std::string FormatOffsetMs(double ms);
// "3.250 s": ns since the run's start, in seconds.
std::string FormatSeconds(int64_t ns);

// Which fault explains something that happened at `t` to `processes`.
struct FaultExplanation {
  int64_t fault = -1;   // index into the faults; -1: none in force or before
  bool active = false;  // in force at t; else the one that ended (or happened) last before t
  int64_t gap_ns = 0;   // t minus the fault's start (active) or its end (before)
};
// Among the windows in force at t: one that hit one of `processes` (a
// client pause of the holder), else the one begun last. None in force: the
// window or event that ended last at or before t.
FaultExplanation ExplainAt(const std::vector<FaultView>& faults, int64_t t,
                           const std::vector<int64_t>& processes);

// One hold in a story: a lock holder, or a buyer of an inventory / counter
// anomaly (its hold, with the read and the write inside it as marks).
struct StoryHold {
  int64_t process = -1;
  int64_t start = 0, end = 0;
  int64_t lease_end = -1;  // -1: unknown
  bool open = false;       // never released
  struct Mark {
    int64_t time;
    std::string label;
  };
  std::vector<Mark> marks;
};
// [max of the starts, min of the ends] when positive, else {-1, -1}.
std::pair<int64_t, int64_t> OverlapOf(const StoryHold& a, const StoryHold& b);

struct AnomalyStory {
  int64_t at = -1;  // when it happened: the overlap's start, else its earliest op
  int64_t overlap_start = -1, overlap_end = -1;  // -1: no overlap
  std::vector<StoryHold> holds;
  FaultExplanation cause;
  std::vector<int64_t> active;  // every fault in force at `at`
};

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
  // through EscapeJsonForScript. The ops (n rows, by start) and the holds (n,
  // by start) are packed tables (reports/packed_table.h), so a million-op
  // page has under half the bytes to load and its script no numbers to
  // parse. Each has "rows", what the timeline draws at first paint, and
  // "ids", what hovering and clicks need; starts are deltas from the
  // previous row's, the first from "t0".
  //   ops.rows:  start (delta), duration + 1 (0: never completed), lane,
  //              kind (an index into "kinds": parallel arrays f, k (key,
  //              -1: none), o (outcome), e (error, -1: none))
  //   ops.ids:   invoke index (delta, signed), completion index minus
  //              invoke index (signed, -1: none)
  //   holds.rows: key, lane, start (delta), end minus start, lease end
  //              (-1: unknown) minus start, as a delta from the previous
  //              hold's (signed; a run's leases mostly last alike)
  //   holds.ids: acquire index (delta, signed), 1 when never released
  // A hold's process is the one its lane ran at its start ("segments").
  void AppendJson(std::string* out) const;

  // Op counts by f: [invoke, ok, fail, info] (client and nemesis ops).
  const std::map<std::string, std::array<int64_t, 4>>& counts() const { return counts_; }
  // Latency of completed client ops by f, all outcomes.
  const std::map<std::string, LatencySummary>& latency() const { return latency_; }
  int64_t end_time() const { return end_time_; }
  size_t row_count() const { return start_.size(); }
  size_t hold_count() const { return hold_start_.size(); }
  size_t fault_count() const { return faults_.size(); }
  size_t resource_op_count() const { return res_time_.size(); }
  // Fault windows in begin order, then point events in time order.
  const std::vector<FaultView>& faults() const { return faults_; }
  // Fault lanes top-down: families in a fixed order (kill, pause, partition,
  // clock, client-pause, client-crash, failover, promotion, lock-lost),
  // others after them.
  const std::vector<std::string>& fault_lanes() const { return fault_lanes_; }
  struct ClockSeries {
    std::string node;
    std::vector<int64_t> time;
    std::vector<double> offset_ms;  // observed (Redis TIME minus the controller's clock)
  };
  const std::vector<ClockSeries>& clocks() const { return clocks_; }
  // The story of an anomaly of results.json (any checker's; the fields it
  // has decide how much of the story there is).
  AnomalyStory StoryOf(const nlohmann::json& anomaly) const;

 private:
  using Fault = FaultView;

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
  std::unordered_map<int64_t, size_t> hold_by_acquire_;  // acquire op index -> hold

  std::vector<Fault> faults_;
  std::vector<std::string> fault_lanes_;
  std::vector<int32_t> fault_lane_;  // per fault
  std::vector<ClockSeries> clocks_;
  // Resource ops (inventory, counter): key, time, value, kind (0 read, 1
  // write, 2 init, 3 final), outcome, lane; in time order.
  std::vector<int32_t> res_key_, res_lane_;
  std::vector<int64_t> res_time_, res_value_;
  std::vector<uint8_t> res_kind_, res_outcome_;

  std::map<std::string, std::array<int64_t, 4>> counts_;
  std::map<std::string, LatencySummary> latency_;
  nlohmann::json plots_;
};

}  // namespace locksmith
