#include "reports/process_lanes.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <utility>

#include "reports/json_columns.h"

namespace locksmith {
namespace {

// When a process first and last did something.
struct Life {
  int64_t first = INT64_MAX, last = 0;
};

// Every client process's life; one never completed lives to `end_time`.
std::map<int64_t, Life> LivesOf(const History& history, int64_t end_time) {
  std::map<int64_t, Life> lives;
  std::unordered_map<int64_t, bool> waiting;  // process -> has an open invoke
  for (const Op& op : history) {
    if (op.is_nemesis()) continue;
    Life& life = lives[op.process];
    life.first = std::min(life.first, op.time);
    life.last = std::max(life.last, op.time);
    waiting[op.process] = op.type == OpType::kInvoke;
  }
  for (auto& [p, life] : lives) {
    if (waiting[p]) life.last = end_time;
  }
  return lives;
}

// The processes of each lane: each process, by its first op, takes the
// lane freed most recently before it started, else a new one.
std::vector<std::vector<int64_t>> PackLanes(const std::map<int64_t, Life>& lives) {
  std::vector<std::pair<int64_t, int64_t>> by_start;  // (first, process)
  for (const auto& [p, life] : lives) by_start.emplace_back(life.first, p);
  std::sort(by_start.begin(), by_start.end());
  std::set<std::pair<int64_t, int32_t>> free_lanes;  // (free since, lane)
  std::vector<std::vector<int64_t>> members;
  for (const auto& [first, p] : by_start) {
    auto it = free_lanes.lower_bound({first, INT32_MIN});
    int32_t lane;
    if (it == free_lanes.begin()) {
      lane = static_cast<int32_t>(members.size());
      members.emplace_back();
    } else {
      --it;
      lane = it->second;
      free_lanes.erase(it);
    }
    members[static_cast<size_t>(lane)].push_back(p);
    free_lanes.insert({lives.at(p).last, lane});
  }
  // Lanes by their lowest process, so p0, p1, ... read top-down.
  std::sort(members.begin(), members.end(), [](const auto& a, const auto& b) {
    return *std::min_element(a.begin(), a.end()) < *std::min_element(b.begin(), b.end());
  });
  return members;
}

}  // namespace

ProcessLanes ProcessLanes::Build(const History& history, int64_t end_time,
                                 const std::string& service_lane) {
  ProcessLanes lanes;
  const bool has_nemesis =
      std::any_of(history.begin(), history.end(), [](const Op& op) { return op.is_nemesis(); });
  if (has_nemesis) {
    lanes.lane_of_[kNemesisProcess] = 0;
    lanes.labels_.push_back("nemesis");
    lanes.first_process_.push_back(kNemesisProcess);
  }
  const std::map<int64_t, Life> lives = LivesOf(history, end_time);
  for (const auto& members : PackLanes(lives)) {
    const auto lane = static_cast<int32_t>(lanes.labels_.size());
    std::string label = members.front() == kServiceProcess
                            ? service_lane
                            : "p" + std::to_string(members.front());
    if (members.size() > 1) label += " +" + std::to_string(members.size() - 1);
    lanes.labels_.push_back(label);
    lanes.first_process_.push_back(members.front());
    for (int64_t p : members) {
      lanes.lane_of_[p] = lane;
      lanes.segment_lane_.push_back(lane);
      lanes.segment_process_.push_back(p);
      lanes.segment_start_.push_back(lives.at(p).first);
    }
  }
  return lanes;
}

int32_t ProcessLanes::LaneOf(int64_t process) const {
  auto it = lane_of_.find(process);
  return it == lane_of_.end() ? 0 : it->second;
}

void ProcessLanes::AppendJson(std::string* out) const {
  AppendStringArray(out, "lanes", labels_);
  *out += ',';
  AppendIntArray(out, "lane_process", first_process_);
  *out += ",\"segments\":{";
  AppendIntArray(out, "lane", segment_lane_);
  *out += ',';
  AppendIntArray(out, "process", segment_process_);
  *out += ',';
  AppendIntArray(out, "s", segment_start_);
  *out += '}';
}

}  // namespace locksmith
