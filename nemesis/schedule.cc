#include "nemesis/schedule.h"

#include <algorithm>
#include <random>

namespace locksmith {

std::vector<ScheduledFault> BuildSchedule(const ScheduleOptions& o) {
  std::vector<ScheduledFault> schedule;
  const int64_t interval_ms = static_cast<int64_t>(o.interval_s * 1000);
  // A cycle shorter than a millisecond would never advance.
  if (o.families.empty() || o.nodes.empty() || !(interval_ms >= 1)) return schedule;
  std::mt19937_64 rng(o.seed);
  const int64_t limit_ms = static_cast<int64_t>(o.time_limit_s * 1000);
  std::uniform_int_distribution<int64_t> jitter(0, interval_ms / 4);
  std::uniform_int_distribution<size_t> pick(0, o.nodes.size() - 1);

  size_t family = 0;
  int64_t window = 0;
  for (int64_t cycle = interval_ms; cycle < limit_ms; cycle += interval_ms) {
    const int64_t start = cycle + jitter(rng);
    const std::string& node = o.nodes[pick(rng)];
    const FaultFamily& fault = o.families[family++ % o.families.size()];
    if (start >= limit_ms) break;
    // The family says which op begins its window; the schedule numbers it.
    for (auto& fault_op : fault.ops(node, start, cycle + interval_ms)) {
      fault_op.mark.window = window;
      fault_op.mark.family = fault.name;
      schedule.push_back(std::move(fault_op));
    }
    ++window;
  }
  std::stable_sort(schedule.begin(), schedule.end(),
                   [](const ScheduledFault& a, const ScheduledFault& b) { return a.at_ms < b.at_ms; });
  return schedule;
}

}  // namespace locksmith
