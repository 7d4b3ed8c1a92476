#include "checker/rw_cache_checker.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace locksmith {
namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

struct Write {
  int64_t invoke = -1;  // positions
  int64_t done = -1;    // of the ok completion; -1 for info
  int64_t invoke_time = 0;
  int64_t done_time = kNever;  // info: may take effect at any time
  int64_t hold = -1;           // of the writer's acquire ok, or -1
};

struct Read {
  int64_t invoke = -1;
  int64_t done = -1;
  int64_t value = 0;
  int64_t hold = -1;
};

struct Fill {
  int64_t invoke = -1;
  int64_t done = -1;       // of the completion (ok or info), or -1
  int64_t value = 0;
  int64_t hold = -1;
  int64_t db_read = -1;    // the filler's database read (its ok completion), or -1
};

struct KeyOps {
  int64_t initial = 0;
  std::map<int64_t, Write> writes;  // by value (ok or info)
  std::vector<Write> completed;     // ok writes, by completion time
  std::vector<Read> reads;
  std::map<int64_t, std::vector<Fill>> fills;  // by value, each in invoke order
  std::optional<int64_t> final;     // of the final read's ok completion
};

std::optional<int64_t> ValueOf(const nlohmann::json& v) {
  if (!v.is_object() || !v.contains("value") || !v["value"].is_number_integer()) {
    return std::nullopt;
  }
  return v["value"].get<int64_t>();
}

class Evidence {
 public:
  explicit Evidence(const History& history) : history_(history) {}
  nlohmann::json Ref(int64_t position) {
    if (position < 0) return nullptr;
    nlohmann::json ref = OpRef(history_[static_cast<size_t>(position)]);
    ops_.push_back(ref);
    return ref;
  }
  // [invoke, completion], the completion null when there is none.
  nlohmann::json Pair(int64_t invoke, int64_t done) { return {Ref(invoke), Ref(done)}; }
  int64_t ProcessAt(int64_t position) const {
    return history_[static_cast<size_t>(position)].process;
  }
  nlohmann::json TakeOps() { return std::exchange(ops_, nlohmann::json::array()); }

 private:
  const History& history_;
  nlohmann::json ops_ = nlohmann::json::array();
};

}  // namespace

CheckResult RwCacheChecker::Check(const History& history) const {
  CheckResult result;
  const std::vector<int64_t> completion = PairCompletions(history);
  std::map<std::string, KeyOps> keys;
  // Per process and key: the hold it is in (its last ok acquire) and its
  // last database read.
  std::map<std::pair<int64_t, std::string>, int64_t> hold_of, db_read_of;
  auto lookup = [](const auto& m, int64_t process, const std::string& key) -> int64_t {
    auto it = m.find({process, key});
    return it == m.end() ? -1 : it->second;
  };
  for (size_t i = 0; i < history.size(); ++i) {
    const Op& op = history[i];
    if (op.process < 0 || op.key.empty()) continue;
    if (op.type == OpType::kOk && op.f == "acquire" &&
        !(op.value.is_object() && op.value.value("reentry", false))) {
      hold_of[{op.process, op.key}] = static_cast<int64_t>(i);
    }
    if (op.type != OpType::kInvoke) continue;
    const int64_t done = completion[i];
    const Op* end = done >= 0 ? &history[static_cast<size_t>(done)] : nullptr;
    const bool ok = end != nullptr && end->type == OpType::kOk;
    const int64_t hold = lookup(hold_of, op.process, op.key);
    const auto at = static_cast<int64_t>(i);
    if (op.f == "init") {
      if (auto v = ValueOf(op.value); v && ok) keys[op.key].initial = *v;
    } else if (op.f == "write") {
      auto v = ValueOf(op.value);
      if (!v || (end != nullptr && end->type == OpType::kFail)) continue;
      Write w{at, -1, op.time, kNever, hold};
      if (ok) {
        w.done = done;
        w.done_time = end->time;
        keys[op.key].completed.push_back(w);
      }
      keys[op.key].writes[*v] = w;
    } else if ((op.f == "read" || op.f == "read-db") && ok) {
      if (auto v = ValueOf(end->value)) {
        keys[op.key].reads.push_back({at, done, *v, hold});
        if (op.f == "read-db") db_read_of[{op.process, op.key}] = done;
      }
    } else if (op.f == "fill") {
      auto v = ValueOf(op.value);
      if (!v || (end != nullptr && end->type == OpType::kFail)) continue;
      const int64_t db_read = lookup(db_read_of, op.process, op.key);
      keys[op.key].fills[*v].push_back({at, done, *v, hold, db_read});
    } else if (op.f == "final" && ok) {
      keys[op.key].final = done;
    }
  }

  int64_t reads = 0, stale = 0, unknown = 0, stale_caches = 0;
  Evidence evidence(history);
  auto holder = [&](int64_t hold, int64_t position) {
    return nlohmann::json{{"process", evidence.ProcessAt(position)}, {"hold", evidence.Ref(hold)}};
  };
  // The last fill of `value` invoked before position `before`.
  auto fill_of = [](const KeyOps& k, int64_t value, int64_t before) -> const Fill* {
    auto same = k.fills.find(value);
    if (same == k.fills.end()) return nullptr;
    const std::vector<Fill>& fills = same->second;
    auto it = std::lower_bound(fills.begin(), fills.end(), before,
                               [](const Fill& f, int64_t at) { return f.invoke < at; });
    return it == fills.begin() ? nullptr : &*std::prev(it);
  };
  auto filler = [&](const Fill* f) -> nlohmann::json {
    if (f == nullptr) return nullptr;
    nlohmann::json j = holder(f->hold, f->invoke);
    j["read_db"] = evidence.Ref(f->db_read);
    j["fill"] = evidence.Pair(f->invoke, f->done);
    return j;
  };
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
      if (source == k.writes.end() && r.value != k.initial) {
        ++unknown;
        nlohmann::json reader = holder(r.hold, r.invoke);
        reader["read"] = evidence.Pair(r.invoke, r.done);
        result.anomalies.push_back({{"type", "unknown-value"},
                                    {"key", key},
                                    {"value", r.value},
                                    {"reader", reader},
                                    {"ops", evidence.TakeOps()}});
        continue;
      }
      if (last == nullptr) continue;
      const bool initial = source == k.writes.end();
      if (!initial && source->second.invoke == last->invoke) continue;
      // Older: the initial value, or a write done before the last one began.
      if (!initial && source->second.done_time >= last->invoke_time) continue;
      ++stale;
      // The read first, then the last write, then the returned write.
      nlohmann::json reader = {{"process", invoke.process},
                               {"read", evidence.Pair(r.invoke, r.done)}};
      nlohmann::json last_write = evidence.Pair(last->invoke, last->done);
      nlohmann::json returned = nullptr;
      if (!initial) returned = evidence.Pair(source->second.invoke, source->second.done);
      reader["hold"] = evidence.Ref(r.hold);
      nlohmann::json writer = holder(last->hold, last->invoke);
      writer["write"] = last_write;
      result.anomalies.push_back({{"type", "stale-read"},
                                  {"key", key},
                                  {"value", r.value},
                                  {"initial", initial},
                                  {"last_write", last_write},
                                  {"returned_write", returned},
                                  {"reader", reader},
                                  {"writer", writer},
                                  {"filler", filler(fill_of(k, r.value, r.invoke))},
                                  {"ops", nullptr}});
      result.anomalies.back()["ops"] = evidence.TakeOps();
    }
    if (!k.final) continue;
    const Op& final = history[static_cast<size_t>(*k.final)];
    const auto value = ValueOf(final.value);
    if (!value || !final.value.contains("cache") || !final.value["cache"].is_number_integer()) {
      continue;
    }
    const int64_t cached = final.value["cache"].get<int64_t>();
    if (cached == *value) continue;
    ++stale_caches;
    nlohmann::json anomaly = {{"type", "stale-cache"},
                              {"key", key},
                              {"value", *value},
                              {"cache", cached},
                              {"final", evidence.Ref(*k.final)}};
    anomaly["filler"] = filler(fill_of(k, cached, *k.final));
    anomaly["ops"] = evidence.TakeOps();
    result.anomalies.push_back(std::move(anomaly));
  }
  result.stats = {{"reads", reads},
                  {"stale_reads", stale},
                  {"unknown_values", unknown},
                  {"stale_caches", stale_caches}};
  if (!result.anomalies.empty()) {
    result.valid = Validity::kFalse;
    result.summary = std::to_string(stale) + " stale reads, " + std::to_string(unknown) +
                     " reads of values never written, " + std::to_string(stale_caches) +
                     " stale cached copies at the end";
  }
  return result;
}

}  // namespace locksmith
