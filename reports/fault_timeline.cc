#include "reports/fault_timeline.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "reports/escape.h"
#include "reports/fault_events.h"

namespace locksmith {
namespace {

// A fault results.json does not describe did nothing when its op failed
// and its value lists no node.
bool HitNoNode(const nlohmann::json& value, const std::string& error) {
  if (error.empty() || !value.is_object()) return false;
  auto nodes = value.find("nodes");
  return nodes != value.end() && nodes->is_array() && nodes->empty();
}

// The window `row`'s begin op opens, open until its end op closes it.
FaultView BeginWindow(const History& history, const OpRow& row, const FaultMark& mark,
                      int64_t end_time, const DescribedFaults& described) {
  const Op& begin = InvokeOf(history, row);
  const Op* done = CompletionOf(history, row);
  const nlohmann::json& value = ValueOf(history, row);
  FaultView fault;
  fault.f = begin.f;
  fault.family = mark.family;
  fault.window = mark.window;
  fault.start = row.start;
  fault.end = end_time;
  fault.open = true;
  if (!value.is_null()) fault.value = SanitizeUtf8(DumpJson(value));
  fault.label = Truncated(SanitizeUtf8(begin.f), 300);
  if (const WindowSummary* told = described.Window(row.index)) {
    if (!told->text.empty()) fault.label = told->text;
    fault.effective = told->effective;
    fault.process = told->process;
  } else {
    fault.effective = !HitNoNode(value, done != nullptr ? done->error : begin.error);
  }
  return fault;
}

// The fault windows of `rows` (sorted by start), in begin order.
std::vector<FaultView> FaultWindows(const History& history, const std::vector<OpRow>& rows,
                                    int64_t end_time, const DescribedFaults& described) {
  std::vector<FaultView> faults;
  std::map<int64_t, size_t> open_windows;  // window -> index in faults
  for (const OpRow& row : rows) {
    const Op& op = InvokeOf(history, row);
    if (!op.is_nemesis() || op.fault.is_null()) continue;
    auto mark = FaultMarkFromJson(op.fault);
    if (!mark) continue;  // histories are checked on load; a report shows what it can
    if (mark->begins) {
      open_windows[mark->window] = faults.size();
      faults.push_back(BeginWindow(history, row, *mark, end_time, described));
    } else if (auto it = open_windows.find(mark->window); it != open_windows.end()) {
      FaultView& fault = faults[it->second];
      fault.end = row.duration >= 0 ? row.start + row.duration : row.start;
      fault.open = false;
      open_windows.erase(it);
    }
  }
  return faults;
}

}  // namespace

FaultTimeline FaultTimeline::Build(const History& history, const std::vector<OpRow>& rows,
                                   int64_t end_time, const DescribedFaults& described,
                                   const DeclaredEvents& declared) {
  FaultTimeline t;
  t.faults_ = FaultWindows(history, rows, end_time, described);
  for (auto& e : HistoryEvents(history, rows, declared)) t.faults_.push_back(std::move(e));
  t.SortLanes(described);
  return t;
}

void FaultTimeline::SortLanes(const DescribedFaults& described) {
  // (group, order, family): described families, event lanes, the others.
  std::set<std::tuple<int, int64_t, std::string>> keys;
  for (const FaultView& f : faults_) {
    if (const LaneLook* look = EventLaneLook(f.family)) {
      keys.insert({1, look->order, f.family});
    } else if (const LaneLook* look = described.Family(f.family)) {
      keys.insert({0, look->order, f.family});
    } else {
      keys.insert({2, 0, f.family});
    }
  }
  for (const auto& [group, order, family] : keys) {
    const LaneLook* look = group == 1   ? EventLaneLook(family)
                           : group == 0 ? described.Family(family)
                                        : nullptr;
    FaultLane lane{family, look != nullptr ? *look : LaneLook{}};
    if (look == nullptr) lane.look.label = Truncated(SanitizeUtf8(family), 40);
    lanes_.push_back(std::move(lane));
  }
  for (const FaultView& f : faults_) fault_lane_.push_back(LaneOf(f.family));
}

int32_t FaultTimeline::LaneOf(const std::string& family) const {
  for (size_t l = 0; l < lanes_.size(); ++l) {
    if (lanes_[l].family == family) return static_cast<int32_t>(l);
  }
  return -1;
}

void FaultTimeline::AppendJson(std::string* out) const {
  nlohmann::json faults = nlohmann::json::array();
  for (size_t i = 0; i < faults_.size(); ++i) {
    const FaultView& f = faults_[i];
    faults.push_back({{"f", f.f},
                      {"family", f.family},
                      {"lane", fault_lane_[i]},
                      {"s", f.start},
                      {"e", f.end},
                      {"open", f.open},
                      {"point", f.point},
                      {"ok", f.effective},
                      {"proc", f.process},
                      {"label", f.label},
                      {"value", f.value}});
  }
  nlohmann::json lanes = nlohmann::json::array();
  for (const FaultLane& lane : lanes_) {
    lanes.push_back({{"label", lane.look.label},
                     {"color", lane.look.color},
                     {"mark", lane.look.client_mark}});
  }
  *out += "\"faults\":" + DumpJson(faults) + ",\"fault_lanes\":" + DumpJson(lanes);
}

}  // namespace locksmith
