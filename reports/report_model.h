// ReportModel: the history boiled down to what report.html draws, built once
// in C++ so the page opens instantly even for a million ops. Each section
// is built by a builder of its own, from the history's rows (OpRow: invoke
// and completion, sorted by invoke time):
//   ProcessLanes  which lane each client process runs in
//   OpTable       one row per operation, in columnar arrays, with values
//   LockHolds     lock holds per key, with their lease ends
//   FaultTimeline fault windows and point events, and their lanes, told and
//                 coloured by results.json's fault descriptions
//   ClockSeries   clock offsets per node as the fault ops observed them
//   ResourceOps   the resource's reads and writes (inventory, counter)
//   LatencyPlots  latency per f, throughput and latency plots
// StoryOf turns an anomaly into a story (reports/anomaly_story.h).
// AppendJson writes the model as the compact JSON blob the page's scripts
// decode. Built once, then read-only; safe to read from several threads.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "history/history.h"
#include "reports/anomaly_story.h"
#include "reports/clock_series.h"
#include "reports/fault_timeline.h"
#include "reports/latency_plots.h"
#include "reports/lock_holds.h"
#include "reports/op_table.h"
#include "reports/process_lanes.h"
#include "reports/resource_ops.h"

namespace locksmith {

class ReportModel {
 public:
  struct Options {
    // Op values (tokens, fences, ...) go into the page only up to this many
    // rows, to keep the file small; nemesis ops and ops named by an anomaly
    // always keep theirs. The rest point to the history.
    size_t max_values = 20000;
    int plot_buckets = 200;
    int scatter_x_bins = 400;
    int scatter_y_bins = 80;
    // Below this many completed client ops the scatter holds exact points.
    size_t max_raw_scatter_points = 5000;
  };
  using LatencySummary = LatencyPlots::Summary;

  // `results`: results.json (its anomalies keep their ops' values, its
  // fault descriptions tell and colour the faults).
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
  // "fault_lanes" are {label, color, mark}; "clock_lane" the fault lane the
  // clock series plot in (-1: none); "fault_fs" the ops a client records
  // when a fault hits it (drawn in the nemesis's colour).
  void AppendJson(std::string* out) const;

  // Op counts by f: [invoke, ok, fail, info] (client and nemesis ops).
  const std::map<std::string, std::array<int64_t, 4>>& counts() const { return counts_; }
  // Latency of completed client ops by f, all outcomes.
  const std::map<std::string, LatencySummary>& latency() const { return plots_.latency(); }
  int64_t end_time() const { return end_time_; }
  size_t row_count() const { return ops_.size(); }
  size_t hold_count() const { return holds_.size(); }
  size_t fault_count() const { return faults_.faults().size(); }
  size_t resource_op_count() const { return resource_.size(); }
  // Fault windows in begin order, then point events in time order.
  const std::vector<FaultView>& faults() const { return faults_.faults(); }
  // Fault lanes top-down (reports/fault_timeline.h).
  const std::vector<FaultLane>& fault_lanes() const { return faults_.lanes(); }
  // The lane of each fault.
  const FaultLane& LaneOfFault(size_t fault) const;
  // The lanes the page colours: each family results.json describes, then
  // each event lane drawn (the rest keep the neutral colour).
  const std::vector<FaultLane>& styled_lanes() const { return styled_lanes_; }
  const std::vector<ClockSeries>& clocks() const { return clocks_.series; }
  // Invoke times of the ops anomalies name, by either index of each.
  const InvokeTimes& invoke_times() const { return invoke_times_; }
  // The story of an anomaly of results.json.
  AnomalyStory StoryOf(const nlohmann::json& anomaly) const;

 private:
  ReportModel() = default;

  int64_t end_time_ = 0;
  std::map<std::string, std::array<int64_t, 4>> counts_;
  ProcessLanes lanes_;
  std::vector<std::string> fs_, keys_, errors_;
  OpTable ops_;
  LockHolds holds_;
  InvokeTimes invoke_times_;  // of the ops anomalies name
  FaultTimeline faults_;
  std::vector<FaultLane> styled_lanes_;
  std::vector<std::string> fault_fs_;
  ClockObservations clocks_;
  ResourceOps resource_;
  LatencyPlots plots_;
};

}  // namespace locksmith
