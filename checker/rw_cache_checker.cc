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

// The ops of every key, each read, write and fill with the hold it was in.
std::map<std::string, KeyOps> CollectKeyOps(const History& history) {
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
  return keys;
}

// Checks one key after another, appending each anomaly (with its evidence)
// to the result and counting what it checked.
class KeyChecker {
 public:
  KeyChecker(const History& history, CheckResult& result)
      : history_(history), result_(result), evidence_(history) {}

  void Check(const std::string& key, KeyOps& k) {
    std::sort(k.completed.begin(), k.completed.end(),
              [](const Write& a, const Write& b) { return a.done_time < b.done_time; });
    for (const Read& r : k.reads) CheckRead(key, k, r);
    if (k.final) CheckFinal(key, k);
  }

  int64_t reads = 0, stale = 0, unknown = 0, stale_caches = 0;

 private:
  void CheckRead(const std::string& key, const KeyOps& k, const Read& r) {
    ++reads;
    const Op& invoke = history_[static_cast<size_t>(r.invoke)];
    // The last write that completed before the read began.
    auto after = std::lower_bound(k.completed.begin(), k.completed.end(), invoke.time,
                                  [](const Write& w, int64_t t) { return w.done_time < t; });
    const Write* last = after == k.completed.begin() ? nullptr : &*std::prev(after);
    auto source = k.writes.find(r.value);
    if (source == k.writes.end() && r.value != k.initial) {
      ReportUnknownValue(key, r);
      return;
    }
    if (last == nullptr) return;
    const Write* returned = source == k.writes.end() ? nullptr : &source->second;
    if (returned != nullptr && returned->invoke == last->invoke) return;
    // Older: the initial value, or a write done before the last one began.
    if (returned != nullptr && returned->done_time >= last->invoke_time) return;
    ReportStaleRead(key, k, r, *last, returned);
  }

  void ReportUnknownValue(const std::string& key, const Read& r) {
    ++unknown;
    nlohmann::json reader = Holder(r.hold, r.invoke);
    reader["read"] = evidence_.Pair(r.invoke, r.done);
    result_.anomalies.push_back({{"type", "unknown-value"},
                                 {"key", key},
                                 {"value", r.value},
                                 {"reader", reader},
                                 {"ops", evidence_.TakeOps()}});
  }

  // `returned` is null when the read returned the initial value.
  void ReportStaleRead(const std::string& key, const KeyOps& k, const Read& r,
                       const Write& last, const Write* returned) {
    ++stale;
    // The read first, then the last write, then the returned write.
    nlohmann::json reader = {{"process", evidence_.ProcessAt(r.invoke)},
                             {"read", evidence_.Pair(r.invoke, r.done)}};
    nlohmann::json last_write = evidence_.Pair(last.invoke, last.done);
    nlohmann::json returned_write = nullptr;
    if (returned != nullptr) returned_write = evidence_.Pair(returned->invoke, returned->done);
    reader["hold"] = evidence_.Ref(r.hold);
    nlohmann::json writer = Holder(last.hold, last.invoke);
    writer["write"] = last_write;
    result_.anomalies.push_back({{"type", "stale-read"},
                                 {"key", key},
                                 {"value", r.value},
                                 {"initial", returned == nullptr},
                                 {"last_write", last_write},
                                 {"returned_write", returned_write},
                                 {"reader", reader},
                                 {"writer", writer},
                                 {"filler", Filler(FillOf(k, r.value, r.invoke))},
                                 {"ops", nullptr}});
    result_.anomalies.back()["ops"] = evidence_.TakeOps();
  }

  void CheckFinal(const std::string& key, const KeyOps& k) {
    const Op& final = history_[static_cast<size_t>(*k.final)];
    const auto value = ValueOf(final.value);
    if (!value || !final.value.contains("cache") || !final.value["cache"].is_number_integer()) {
      return;
    }
    const int64_t cached = final.value["cache"].get<int64_t>();
    if (cached == *value) return;
    ++stale_caches;
    nlohmann::json anomaly = {{"type", "stale-cache"},
                              {"key", key},
                              {"value", *value},
                              {"cache", cached},
                              {"final", evidence_.Ref(*k.final)}};
    anomaly["filler"] = Filler(FillOf(k, cached, *k.final));
    anomaly["ops"] = evidence_.TakeOps();
    result_.anomalies.push_back(std::move(anomaly));
  }

  nlohmann::json Holder(int64_t hold, int64_t position) {
    return nlohmann::json{{"process", evidence_.ProcessAt(position)},
                          {"hold", evidence_.Ref(hold)}};
  }

  nlohmann::json Filler(const Fill* f) {
    if (f == nullptr) return nullptr;
    nlohmann::json j = Holder(f->hold, f->invoke);
    j["read_db"] = evidence_.Ref(f->db_read);
    j["fill"] = evidence_.Pair(f->invoke, f->done);
    return j;
  }

  // The last fill of `value` invoked before position `before`.
  static const Fill* FillOf(const KeyOps& k, int64_t value, int64_t before) {
    auto same = k.fills.find(value);
    if (same == k.fills.end()) return nullptr;
    const std::vector<Fill>& fills = same->second;
    auto it = std::lower_bound(fills.begin(), fills.end(), before,
                               [](const Fill& f, int64_t at) { return f.invoke < at; });
    return it == fills.begin() ? nullptr : &*std::prev(it);
  }

  const History& history_;
  CheckResult& result_;
  Evidence evidence_;
};

}  // namespace

CheckResult RwCacheChecker::CheckWhole(const History& history) const {
  CheckResult result;
  std::map<std::string, KeyOps> keys = CollectKeyOps(history);
  KeyChecker checker(history, result);
  for (auto& [key, k] : keys) checker.Check(key, k);
  result.stats = {{"reads", checker.reads},
                  {"stale_reads", checker.stale},
                  {"unknown_values", checker.unknown},
                  {"stale_caches", checker.stale_caches}};
  if (!result.anomalies.empty()) {
    result.valid = Validity::kFalse;
    result.summary = std::to_string(checker.stale) + " stale reads, " +
                     std::to_string(checker.unknown) + " reads of values never written, " +
                     std::to_string(checker.stale_caches) + " stale cached copies at the end";
  }
  return result;
}

}  // namespace locksmith
