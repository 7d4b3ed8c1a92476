#include "checker/rw_cache_checker.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "checker/completion_pairer.h"
#include "checker/op_marks.h"

namespace locksmith {
namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

struct Write {
  int64_t invoked = -1;  // position of the invoke
  OpMark invoke;
  OpMark done;  // the ok completion; none for info
  int64_t invoke_time = 0;
  int64_t done_time = kNever;  // info: may take effect at any time
  OpMark hold;                 // the writer's acquire ok, if any
};

struct Read {
  int64_t invoked = -1;
  OpMark invoke;
  OpMark done;
  int64_t value = 0;
  OpMark hold;
  std::optional<Write> last;  // the last write completed before it began
};

struct Fill {
  int64_t invoked = -1;
  OpMark invoke;
  OpMark done;  // the completion (ok or info), if any
  OpMark hold;
  OpMark db_read;  // the filler's database read (its ok completion), if any
};

struct Final {
  int64_t invoked = -1;  // the last invoked counts
  int64_t at = -1;       // position of its completion
  OpMark done;
  std::optional<int64_t> value, cache;
};

struct CacheKeyState {
  int64_t initial = 0;
  int64_t initial_invoked = -1;
  std::map<int64_t, Write> writes;  // by value (ok or info): the last invoked
  // The last ok write to complete, and the last one before it that
  // completed earlier: the last completed before any read that begins now.
  std::optional<Write> completed, completed_before;
  std::map<int64_t, std::vector<Fill>> fills;  // by value, each in invoke order
  std::vector<Read> suspects;  // reads the writes seen so far call stale or unknown
  std::optional<Final> final;
};

// A process's op in flight, with what its verdict needs from its invoke.
struct InFlight {
  int64_t invoked = -1;
  OpMark invoke;
  std::string f, key;
  std::optional<int64_t> value;  // a write's or fill's
  OpMark hold;
  OpMark db_read;
  std::optional<Write> last;  // a read's
};

std::optional<int64_t> ValueOf(const nlohmann::json& v) {
  if (!v.is_object() || !v.contains("value") || !v["value"].is_number_integer()) {
    return std::nullopt;
  }
  return v["value"].get<int64_t>();
}

bool IsReentryGrant(const Op& op) {
  return op.value.is_object() && op.value.value("reentry", false);
}

// The OpRefs an anomaly names, in the order it names them.
class Evidence {
 public:
  explicit Evidence(const OpMarks& marks) : marks_(marks) {}
  nlohmann::json Ref(const OpMark& mark) {
    if (!mark.present) return nullptr;
    nlohmann::json ref = marks_.Ref(mark);
    ops_.push_back(ref);
    return ref;
  }
  // [invoke, completion], the completion null when there is none.
  nlohmann::json Pair(const OpMark& invoke, const OpMark& done) {
    return {Ref(invoke), Ref(done)};
  }
  nlohmann::json TakeOps() { return std::exchange(ops_, nlohmann::json::array()); }

 private:
  const OpMarks& marks_;
  nlohmann::json ops_ = nlohmann::json::array();
};

// Decides each suspect read with every write known, and the final read,
// appending each anomaly (with its evidence) to the result.
class KeyJudge {
 public:
  KeyJudge(const OpMarks& marks, CheckResult& result) : result_(result), evidence_(marks) {}

  void Judge(const std::string& key, const CacheKeyState& k) {
    for (const Read& r : k.suspects) JudgeRead(key, k, r);
    if (k.final) JudgeFinal(key, k);
  }

  int64_t stale = 0, unknown = 0, stale_caches = 0;

 private:
  void JudgeRead(const std::string& key, const CacheKeyState& k, const Read& r) {
    auto source = k.writes.find(r.value);
    if (source == k.writes.end() && r.value != k.initial) {
      ReportUnknownValue(key, r);
      return;
    }
    if (!r.last) return;
    const Write* returned = source == k.writes.end() ? nullptr : &source->second;
    if (returned != nullptr && returned->invoked == r.last->invoked) return;
    // Older: the initial value, or a write done before the last one began.
    if (returned != nullptr && returned->done_time >= r.last->invoke_time) return;
    ReportStaleRead(key, k, r, *r.last, returned);
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
  void ReportStaleRead(const std::string& key, const CacheKeyState& k, const Read& r,
                       const Write& last, const Write* returned) {
    ++stale;
    // The read first, then the last write, then the returned write.
    nlohmann::json reader = {{"process", r.invoke.process},
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
                                 {"filler", Filler(FillOf(k, r.value, r.invoked))},
                                 {"ops", nullptr}});
    result_.anomalies.back()["ops"] = evidence_.TakeOps();
  }

  void JudgeFinal(const std::string& key, const CacheKeyState& k) {
    const Final& final = *k.final;
    if (!final.value || !final.cache || *final.cache == *final.value) return;
    ++stale_caches;
    nlohmann::json anomaly = {{"type", "stale-cache"},
                              {"key", key},
                              {"value", *final.value},
                              {"cache", *final.cache},
                              {"final", evidence_.Ref(final.done)}};
    anomaly["filler"] = Filler(FillOf(k, *final.cache, final.at));
    anomaly["ops"] = evidence_.TakeOps();
    result_.anomalies.push_back(std::move(anomaly));
  }

  nlohmann::json Holder(const OpMark& hold, const OpMark& op) {
    return nlohmann::json{{"process", op.process}, {"hold", evidence_.Ref(hold)}};
  }

  nlohmann::json Filler(const Fill* f) {
    if (f == nullptr) return nullptr;
    nlohmann::json j = Holder(f->hold, f->invoke);
    j["read_db"] = evidence_.Ref(f->db_read);
    j["fill"] = evidence_.Pair(f->invoke, f->done);
    return j;
  }

  // The last fill of `value` invoked before position `before`.
  static const Fill* FillOf(const CacheKeyState& k, int64_t value, int64_t before) {
    auto same = k.fills.find(value);
    if (same == k.fills.end()) return nullptr;
    const std::vector<Fill>& fills = same->second;
    auto it = std::lower_bound(fills.begin(), fills.end(), before,
                               [](const Fill& f, int64_t at) { return f.invoked < at; });
    return it == fills.begin() ? nullptr : &*std::prev(it);
  }

  CheckResult& result_;
  Evidence evidence_;
};

// One pass: per key the writes and fills by value and the last completed
// write; each read judged at its completion against what is known then,
// the ones that look stale or unknown judged again at the end.
class RwCachePass : public CheckPass {
 public:
  void Observe(const Op& op) override {
    const int64_t position = position_++;
    const CompletionPairer::Pairing pairing = pairer_.Observe(op);
    if (op.process < 0) return;
    if (op.type == OpType::kInvoke) {
      // Its op in flight was never completed: a process invokes again only
      // once its last op is over.
      if (auto it = in_flight_.find(op.process); it != in_flight_.end()) {
        InFlight open = std::move(it->second);
        in_flight_.erase(it);
        Resolve(open, nullptr, -1);
      }
      if (!op.key.empty()) OnInvoke(position, op);
      return;
    }
    if (!op.key.empty() && op.type == OpType::kOk && op.f == "acquire" && !IsReentryGrant(op)) {
      hold_of_[{op.process, op.key}] = marks_.Mark(op);
    }
    if (!pairing.invoke) return;
    auto it = in_flight_.find(op.process);
    if (it == in_flight_.end()) return;
    InFlight open = std::move(it->second);
    in_flight_.erase(it);
    Resolve(open, &op, position);
  }

  CheckResult Finish() override;

 private:
  OpMark Lookup(const std::map<std::pair<int64_t, std::string>, OpMark>& m, int64_t process,
                const std::string& key) const {
    auto it = m.find({process, key});
    return it == m.end() ? OpMark() : it->second;
  }

  void OnInvoke(int64_t position, const Op& op) {
    InFlight f{position, marks_.Mark(op), op.f, op.key};
    f.hold = Lookup(hold_of_, op.process, op.key);
    if (op.f == "write" || op.f == "fill" || op.f == "init") f.value = ValueOf(op.value);
    if (op.f == "fill") f.db_read = Lookup(db_read_of_, op.process, op.key);
    if (op.f == "read" || op.f == "read-db") f.last = LastCompletedBefore(keys_[op.key], op.time);
    in_flight_[op.process] = std::move(f);
  }

  // The write completed last before `time` (of those with the latest
  // completion time, the last recorded).
  static std::optional<Write> LastCompletedBefore(const CacheKeyState& k, int64_t time) {
    if (k.completed && k.completed->done_time < time) return k.completed;
    if (k.completed_before && k.completed_before->done_time < time) return k.completed_before;
    return std::nullopt;
  }

  // The op `f` ended with `end` (at `at`; null: it never completed).
  void Resolve(InFlight& f, const Op* end, int64_t at) {
    const std::string& name = f.f;
    const bool ok = end != nullptr && end->type == OpType::kOk;
    const bool failed = end != nullptr && end->type == OpType::kFail;
    CacheKeyState& k = keys_[f.key];
    if (name == "init") {
      if (f.value && ok && f.invoked > k.initial_invoked) {
        k.initial = *f.value;
        k.initial_invoked = f.invoked;
      }
    } else if (name == "write") {
      if (f.value && !failed) OnWrite(k, f, end);
    } else if ((name == "read" || name == "read-db") && ok) {
      if (auto v = ValueOf(end->value)) OnRead(k, f, *end, *v, name == "read-db");
    } else if (name == "fill") {
      if (!f.value || failed) return;
      Fill fill{f.invoked, f.invoke, end ? marks_.Mark(*end) : OpMark(), f.hold, f.db_read};
      std::vector<Fill>& fills = k.fills[*f.value];
      auto it = std::upper_bound(fills.begin(), fills.end(), f.invoked,
                                 [](int64_t at, const Fill& x) { return at < x.invoked; });
      fills.insert(it, fill);
    } else if (name == "final" && ok && (!k.final || k.final->invoked < f.invoked)) {
      Final final{f.invoked, at, marks_.Mark(*end), ValueOf(end->value), std::nullopt};
      if (end->value.is_object() && end->value.contains("cache") &&
          end->value["cache"].is_number_integer()) {
        final.cache = end->value["cache"].get<int64_t>();
      }
      k.final = final;
    }
  }

  void OnWrite(CacheKeyState& k, const InFlight& f, const Op* end) {
    Write w{f.invoked, f.invoke, OpMark(), f.invoke.time, kNever, f.hold};
    if (end != nullptr && end->type == OpType::kOk) {
      w.done = marks_.Mark(*end);
      w.done_time = end->time;
      if (!k.completed || w.done_time > k.completed->done_time) k.completed_before = k.completed;
      k.completed = w;
    }
    auto [it, fresh] = k.writes.try_emplace(*f.value, w);
    if (!fresh && it->second.invoked < w.invoked) it->second = w;
  }

  // A read is suspect when the writes known at its completion make it
  // stale or unknown; a write invoked later with its value may clear it.
  void OnRead(CacheKeyState& k, const InFlight& f, const Op& end, int64_t value, bool from_db) {
    ++reads_;
    const OpMark done = marks_.Mark(end);
    if (from_db) db_read_of_[{f.invoke.process, f.key}] = done;
    Read r{f.invoked, f.invoke, done, value, f.hold, f.last};
    auto source = k.writes.find(value);
    const Write* returned = source == k.writes.end() ? nullptr : &source->second;
    bool suspect;
    if (returned == nullptr && value != k.initial) {
      suspect = true;
    } else {
      suspect = r.last && (returned == nullptr || (returned->invoked != r.last->invoked &&
                                                   returned->done_time < r.last->invoke_time));
    }
    if (suspect) k.suspects.push_back(std::move(r));
  }

  int64_t position_ = 0;
  CompletionPairer pairer_{false};
  OpMarks marks_;
  std::unordered_map<int64_t, InFlight> in_flight_;  // by process
  // Per process and key: the hold it is in (its last ok acquire) and its
  // last database read.
  std::map<std::pair<int64_t, std::string>, OpMark> hold_of_, db_read_of_;
  std::map<std::string, CacheKeyState> keys_;
  int64_t reads_ = 0;
};

CheckResult RwCachePass::Finish() {
  for (auto& [process, f] : in_flight_) Resolve(f, nullptr, -1);
  in_flight_.clear();
  CheckResult result;
  KeyJudge judge(marks_, result);
  for (auto& [key, k] : keys_) {
    std::stable_sort(k.suspects.begin(), k.suspects.end(),
                     [](const Read& a, const Read& b) { return a.invoked < b.invoked; });
    judge.Judge(key, k);
  }
  result.stats = {{"reads", reads_},
                  {"stale_reads", judge.stale},
                  {"unknown_values", judge.unknown},
                  {"stale_caches", judge.stale_caches}};
  if (!result.anomalies.empty()) {
    result.valid = Validity::kFalse;
    result.summary = std::to_string(judge.stale) + " stale reads, " +
                     std::to_string(judge.unknown) + " reads of values never written, " +
                     std::to_string(judge.stale_caches) + " stale cached copies at the end";
  }
  return result;
}

}  // namespace

std::unique_ptr<CheckPass> RwCacheChecker::Start() const {
  return std::make_unique<RwCachePass>();
}

}  // namespace locksmith
