#include "reports/clock_series.h"

#include <map>
#include <utility>

#include "base/text.h"

namespace locksmith {
namespace {

const nlohmann::json* ObservedOffset(const nlohmann::json& seen) {
  if (!seen.is_object()) return nullptr;
  auto o = seen.find("observed_offset_ms");
  return o != seen.end() && o->is_number() ? &*o : nullptr;
}

}  // namespace

ClockObservations ObserveClocks(const History& history) {
  ClockObservations out;
  std::map<std::string, ClockSeries, decltype(&NaturalLess)> series(&NaturalLess);
  for (const Op& op : history) {
    if (!op.is_nemesis() || op.type == OpType::kInvoke || !op.value.is_object()) continue;
    auto clocks = op.value.find("clocks");
    if (clocks == op.value.end() || !clocks->is_object()) continue;
    for (const auto& [node, seen] : clocks->items()) {
      const nlohmann::json* o = ObservedOffset(seen);
      if (o == nullptr) continue;
      ClockSeries& s = series[node];
      if (s.time.empty() && op.time > 0) s.time.push_back(0), s.offset_ms.push_back(0);
      s.node = node;
      s.time.push_back(op.time);
      s.offset_ms.push_back(o->get<double>());
    }
    if (out.family.empty() && !op.fault.is_null()) {
      if (auto mark = FaultMarkFromJson(op.fault)) out.family = mark->family;
    }
  }
  for (auto& [node, s] : series) out.series.push_back(std::move(s));
  return out;
}

}  // namespace locksmith
