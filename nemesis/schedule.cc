#include "nemesis/schedule.h"

#include <algorithm>
#include <random>

#include "base/seed.h"

namespace locksmith {

WindowOps TimedWindow(FaultOp begin, FaultOp end, int64_t duration_ms) {
  return [begin = std::move(begin), end = std::move(end), duration_ms](int64_t start_ms,
                                                                       int64_t end_by_ms) {
    const int64_t stop = std::max(start_ms, std::min(start_ms + duration_ms, end_by_ms - 1));
    FaultMark ends;
    ends.begins = false;
    return std::vector<ScheduledFault>{{start_ms, begin, {}}, {stop, end, ends}};
  };
}

Op ScheduledFault::Invoke() const {
  Op invoke;
  invoke.process = kNemesisProcess;
  invoke.type = OpType::kInvoke;
  invoke.f = op.f;
  invoke.value = op.value;
  invoke.fault = mark.ToJson();
  return invoke;
}

std::vector<ScheduledFault> BuildSchedule(const ScheduleOptions& o) {
  const int64_t interval_ms = static_cast<int64_t>(o.interval_s * 1000);
  // A cycle shorter than a millisecond would never advance.
  if (o.families.empty() || !(interval_ms >= 1)) return {};
  const int64_t limit_ms = static_cast<int64_t>(o.time_limit_s * 1000);
  const int64_t n = static_cast<int64_t>(o.families.size());

  std::vector<std::vector<ScheduledFault>> windows;
  for (int64_t i = 0; i < n; ++i) {
    const FaultFamily& family = o.families[static_cast<size_t>(i)];
    std::mt19937_64 rng(SubSeed(o.seed, static_cast<uint64_t>(i)));
    std::uniform_int_distribution<int64_t> jitter(0, interval_ms / 4);
    const int64_t stagger = i * interval_ms / n;
    for (int64_t slot = interval_ms + stagger; slot < limit_ms; slot += interval_ms) {
      const int64_t start = slot + jitter(rng);
      if (start >= limit_ms) break;
      std::vector<ScheduledFault> ops = family.ops(start, slot + interval_ms);
      for (auto& op : ops) op.mark.family = family.name;
      if (!ops.empty()) windows.push_back(std::move(ops));
    }
  }
  std::stable_sort(windows.begin(), windows.end(),
                   [](const auto& a, const auto& b) { return a.front().at_ms < b.front().at_ms; });
  std::vector<ScheduledFault> schedule;
  for (size_t w = 0; w < windows.size(); ++w) {
    for (auto& op : windows[w]) {
      op.mark.window = static_cast<int64_t>(w);
      schedule.push_back(std::move(op));
    }
  }
  std::stable_sort(
      schedule.begin(), schedule.end(),
      [](const ScheduledFault& a, const ScheduledFault& b) { return a.at_ms < b.at_ms; });
  return schedule;
}

}  // namespace locksmith
