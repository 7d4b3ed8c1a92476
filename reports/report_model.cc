#include "reports/report_model.h"

#include <algorithm>
#include <set>

#include "reports/declared_events.h"
#include "reports/described_faults.h"
#include "reports/escape.h"
#include "reports/fault_events.h"
#include "reports/json_columns.h"
#include "reports/op_refs.h"

namespace locksmith {
namespace {

std::set<int64_t> AnomalyOps(const nlohmann::json& results) {
  std::set<int64_t> ops;
  if (!results.is_object()) return ops;
  if (auto it = results.find("anomalies"); it != results.end()) CollectOpIndices(*it, &ops);
  return ops;
}

std::vector<FaultLane> StyledLanes(const DescribedFaults& described,
                                   const std::vector<FaultLane>& drawn) {
  std::vector<FaultLane> lanes;
  for (const auto& [family, look] : described.families()) lanes.push_back({family, look});
  for (const FaultLane& lane : drawn) {
    if (described.Family(lane.family) == nullptr && EventLaneLook(lane.family) != nullptr) {
      lanes.push_back(lane);
    }
  }
  return lanes;
}

}  // namespace

ReportModel ReportModel::Build(const History& history, const nlohmann::json& results,
                               const Options& options) {
  ReportModel m;
  for (const Op& op : history) {
    m.end_time_ = std::max(m.end_time_, op.time);
    ++m.counts_[op.f][static_cast<size_t>(op.type)];
  }
  const DeclaredEvents declared = DeclaredEvents::FromResults(results);
  m.lanes_ = ProcessLanes::Build(history, m.end_time_, declared.source());
  OpNameTables names;
  const std::vector<OpRow> rows = BuildOpRows(history, m.lanes_, &names);
  const std::set<int64_t> anomaly_ops = AnomalyOps(results);
  m.ops_ = OpTable::Build(history, rows, anomaly_ops, options.max_values);
  for (const OpRow& row : rows) {
    if (anomaly_ops.count(row.index) == 0 && anomaly_ops.count(row.completion_index) == 0) continue;
    m.invoke_times_[row.index] = row.start;
    if (row.completion_index >= 0) m.invoke_times_[row.completion_index] = row.start;
  }
  m.holds_ = LockHolds::Build(history, m.lanes_, &names.keys, m.end_time_);
  const DescribedFaults described = DescribedFaults::FromResults(results);
  m.faults_ = FaultTimeline::Build(history, rows, m.end_time_, described, declared);
  m.styled_lanes_ = StyledLanes(described, m.faults_.lanes());
  m.fault_fs_.assign(described.client_ops().begin(), described.client_ops().end());
  m.clocks_ = ObserveClocks(history);
  m.resource_ = ResourceOps::Build(history, rows, &names.keys);
  m.fs_ = names.fs.Take();
  const LatencyPlots::Options plots{options.plot_buckets, options.scatter_x_bins,
                                    options.scatter_y_bins, options.max_raw_scatter_points};
  m.plots_ = LatencyPlots::Build(history, rows, m.fs_, m.end_time_, plots);
  m.keys_ = names.keys.Take();
  m.errors_ = names.errors.Take();
  return m;
}

const FaultLane& ReportModel::LaneOfFault(size_t fault) const {
  return faults_.lanes()[static_cast<size_t>(faults_.fault_lane()[fault])];
}

AnomalyStory ReportModel::StoryOf(const nlohmann::json& anomaly) const {
  return TellStory(anomaly, holds_, faults_.faults(), end_time_, invoke_times_);
}

void ReportModel::AppendJson(std::string* out) const {
  out->reserve(out->size() + ops_.size() * 16 + holds_.size() * 24 + 65536);
  *out += "{\"version\":2,\"t1\":" + std::to_string(end_time_) + ",";
  lanes_.AppendJson(out);
  *out += ',';
  AppendStringArray(out, "fs", fs_);
  *out += ',';
  AppendStringArray(out, "keys", keys_);
  *out += ',';
  AppendStringArray(out, "errors", errors_);
  *out += ',';
  ops_.AppendJson(out);
  *out += ',';
  holds_.AppendJson(out);
  *out += ',';
  faults_.AppendJson(out);
  *out += ",\"clock_lane\":" + std::to_string(clocks_.family.empty()
                                                  ? -1
                                                  : faults_.LaneOf(clocks_.family));
  *out += ',';
  AppendStringArray(out, "fault_fs", fault_fs_);
  *out += ",\"clocks\":";
  nlohmann::json clocks = nlohmann::json::array();
  for (const auto& c : clocks_.series) {
    clocks.push_back({{"node", c.node}, {"t", c.time}, {"ms", c.offset_ms}});
  }
  *out += DumpJson(clocks);
  *out += ',';
  resource_.AppendJson(out);
  *out += ',';
  plots_.AppendJson(out);
  *out += '}';
}

}  // namespace locksmith
