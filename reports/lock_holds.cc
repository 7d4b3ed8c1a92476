#include "reports/lock_holds.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <string_view>
#include <utility>

#include "base/text.h"
#include "reports/json_columns.h"

namespace locksmith {
namespace {

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool IsAcquire(std::string_view f) { return StartsWith(f, "acquire") || f == "lock"; }
bool IsRelease(std::string_view f) { return StartsWith(f, "release") || f == "unlock"; }

// When the lease an acquire granted ends: its value's validity_ms after it; -1 when unsaid.
int64_t LeaseEnd(const Op& acquired) {
  if (!acquired.value.is_object()) return -1;
  auto v = acquired.value.find("validity_ms");
  if (v == acquired.value.end() || !v->is_number()) return -1;
  return acquired.time + MillisToNs(v->get<double>());
}

}  // namespace

LockHolds LockHolds::Build(const History& history, const ProcessLanes& lanes, Interner* keys,
                           int64_t end_time) {
  LockHolds holds;
  struct Open {
    int64_t start, lease_end, acquire_index;
  };
  std::map<std::pair<int64_t, std::string>, Open> open;
  auto close = [&](const std::pair<int64_t, std::string>& pk, const Open& h, int64_t end,
                   bool never_released) {
    holds.Add(keys->Id(pk.second), lanes.LaneOf(pk.first),
              Hold{pk.first, h.start, std::max(h.start, end), h.lease_end, never_released},
              h.acquire_index);
  };
  for (const Op& op : history) {
    if (!op.is_client() || op.key.empty()) continue;
    auto pk = std::make_pair(op.process, op.key);
    const bool acquired = op.type == OpType::kOk && IsAcquire(op.f);
    if (!acquired && !(op.type == OpType::kInvoke && IsRelease(op.f))) continue;
    // An acquire over a hold it never released ends that one, still open.
    if (auto it = open.find(pk); it != open.end()) {
      close(pk, it->second, op.time, acquired);
      open.erase(it);
    }
    if (acquired) open[pk] = Open{op.time, LeaseEnd(op), op.index};
  }
  for (const auto& [pk, h] : open) close(pk, h, end_time, true);
  holds.SortByStart();
  return holds;
}

void LockHolds::Add(int32_t key, int32_t lane, const Hold& hold, int64_t acquire_index) {
  key_.push_back(key);
  lane_.push_back(lane);
  holds_.push_back(hold);
  start_.push_back(hold.start);
  acquire_index_.push_back(acquire_index);
}

void LockHolds::SortByStart() {
  std::vector<size_t> order(start_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return start_[a] < start_[b]; });
  auto permute = [&](auto& v) {
    auto copy = v;
    for (size_t i = 0; i < order.size(); ++i) v[i] = copy[order[i]];
  };
  permute(key_), permute(lane_), permute(holds_), permute(start_), permute(acquire_index_);
  for (size_t j = 0; j < acquire_index_.size(); ++j) by_acquire_.emplace(acquire_index_[j], j);
}

const LockHolds::Hold* LockHolds::ByAcquire(int64_t acquire_index) const {
  auto it = by_acquire_.find(acquire_index);
  return it == by_acquire_.end() ? nullptr : &holds_[it->second];
}

void LockHolds::AppendJson(std::string* out) const {
  const int64_t h0 = start_.empty() ? 0 : start_.front();
  *out += "\"holds\":{\"n\":" + std::to_string(size()) + ",\"t0\":" + std::to_string(h0) + ',';
  const std::vector<int64_t> key = Int64s(key_), lane = Int64s(lane_), start = Deltas(start_, h0);
  std::vector<int64_t> length(size()), lease(size()), open(size());
  for (size_t j = 0; j < size(); ++j) {
    length[j] = holds_[j].end - holds_[j].start;
    lease[j] = holds_[j].lease_end - holds_[j].start;
    open[j] = holds_[j].open ? 1 : 0;
  }
  lease = Deltas(std::move(lease));
  AppendTable(out, "rows",
              {{&key, false}, {&lane, false}, {&start, false}, {&length, false}, {&lease, true}});
  *out += ',';
  const std::vector<int64_t> acquire = Deltas(acquire_index_);
  AppendTable(out, "ids", {{&acquire, true}, {&open, false}});
  *out += '}';
}

}  // namespace locksmith
