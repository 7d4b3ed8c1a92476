#include "checker/rw_cache_checker.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <vector>

namespace locksmith {
namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

struct Write {
  int64_t invoke = -1;  // positions
  int64_t done = -1;    // of the ok completion; -1 for info
  int64_t invoke_time = 0;
  int64_t done_time = kNever;  // info: may take effect at any time
};

struct Read {
  int64_t invoke = -1;
  int64_t done = -1;
  int64_t value = 0;
};

struct KeyOps {
  int64_t initial = 0;
  std::map<int64_t, Write> writes;  // by value (ok or info)
  std::vector<Write> completed;     // ok writes, by completion time
  std::vector<Read> reads;
};

std::optional<int64_t> ValueOf(const nlohmann::json& v) {
  if (!v.is_object() || !v.contains("value") || !v["value"].is_number_integer()) {
    return std::nullopt;
  }
  return v["value"].get<int64_t>();
}

}  // namespace

CheckResult RwCacheChecker::Check(const History& history) const {
  CheckResult result;
  const std::vector<int64_t> completion = PairCompletions(history);
  std::map<std::string, KeyOps> keys;
  for (size_t i = 0; i < history.size(); ++i) {
    const Op& op = history[i];
    if (op.process < 0 || op.type != OpType::kInvoke || op.key.empty()) continue;
    const int64_t done = completion[i];
    const Op* end = done >= 0 ? &history[static_cast<size_t>(done)] : nullptr;
    if (op.f == "init") {
      if (auto v = ValueOf(op.value); v && end != nullptr && end->type == OpType::kOk) {
        keys[op.key].initial = *v;
      }
    } else if (op.f == "write") {
      auto v = ValueOf(op.value);
      if (!v || (end != nullptr && end->type == OpType::kFail)) continue;
      Write w{static_cast<int64_t>(i), -1, op.time, kNever};
      if (end != nullptr && end->type == OpType::kOk) {
        w.done = done;
        w.done_time = end->time;
        keys[op.key].completed.push_back(w);
      }
      keys[op.key].writes[*v] = w;
    } else if (op.f == "read" && end != nullptr && end->type == OpType::kOk) {
      if (auto v = ValueOf(end->value)) {
        keys[op.key].reads.push_back({static_cast<int64_t>(i), done, *v});
      }
    }
  }
  int64_t reads = 0, stale = 0, unknown = 0;
  for (auto& [key, k] : keys) {
    std::sort(k.completed.begin(), k.completed.end(),
              [](const Write& a, const Write& b) { return a.done_time < b.done_time; });
    for (const Read& r : k.reads) {
      ++reads;
      const Op& invoke = history[static_cast<size_t>(r.invoke)];
      // The last write that completed before the read began.
      auto after = std::lower_bound(
          k.completed.begin(), k.completed.end(), invoke.time,
          [](const Write& w, int64_t t) { return w.done_time < t; });
      const Write* last = after == k.completed.begin() ? nullptr : &*std::prev(after);
      auto source = k.writes.find(r.value);
      nlohmann::json ops = {OpRef(invoke), OpRef(history[static_cast<size_t>(r.done)])};
      if (source == k.writes.end() && r.value != k.initial) {
        ++unknown;
        result.anomalies.push_back(
            {{"type", "unknown-value"}, {"key", key}, {"value", r.value}, {"ops", ops}});
        continue;
      }
      if (last == nullptr) continue;
      const bool initial = source == k.writes.end();
      if (!initial && source->second.invoke == last->invoke) continue;
      // Older: the initial value, or a write done before the last one began.
      if (!initial && source->second.done_time >= last->invoke_time) continue;
      ++stale;
      nlohmann::json last_write = {OpRef(history[static_cast<size_t>(last->invoke)]),
                                   OpRef(history[static_cast<size_t>(last->done)])};
      nlohmann::json returned = nullptr;
      if (!initial) {
        returned = {OpRef(history[static_cast<size_t>(source->second.invoke)]),
                    OpRef(history[static_cast<size_t>(source->second.done)])};
      }
      for (const auto& o : last_write) ops.push_back(o);
      if (!initial) {
        for (const auto& o : returned) ops.push_back(o);
      }
      result.anomalies.push_back({{"type", "stale-read"},
                                  {"key", key},
                                  {"value", r.value},
                                  {"initial", initial},
                                  {"last_write", last_write},
                                  {"returned_write", returned},
                                  {"ops", ops}});
    }
  }
  result.stats = {{"reads", reads}, {"stale_reads", stale}, {"unknown_values", unknown}};
  if (!result.anomalies.empty()) {
    result.valid = Validity::kFalse;
    result.summary = std::to_string(stale) + " stale reads, " + std::to_string(unknown) +
                     " reads of values never written";
  }
  return result;
}

}  // namespace locksmith
