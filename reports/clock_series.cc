#include "reports/clock_series.h"

#include <map>
#include <utility>

namespace locksmith {
namespace {

// Names with a trailing number ("n12", "n3") order by prefix, then number.
bool NaturalLess(const std::string& a, const std::string& b) {
  auto split = [](const std::string& s) {
    size_t i = s.size();
    while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9') --i;
    const bool numbered = i < s.size() && s.size() - i < 12;
    return std::make_pair(s.substr(0, i), numbered ? std::stoll(s.substr(i)) : -1LL);
  };
  auto sa = split(a), sb = split(b);
  return sa != sb ? sa < sb : a < b;
}

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
