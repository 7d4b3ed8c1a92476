#include "checker/double_holder.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>

#include "checker/leased_lock_checker.h"

namespace locksmith {
namespace {

constexpr int64_t kNsPerMs = 1'000'000;
constexpr int64_t kOpen = std::numeric_limits<int64_t>::max();

// A lease end the holder learnt at `known_at` (a renewal, a re-entry).
struct Extension {
  int64_t known_at = 0;
  int64_t lease_end = 0;
};

struct Hold {
  int64_t process = 0;
  int64_t start = 0;       // ns
  int64_t end = kOpen;     // ns; kOpen when never released
  int64_t lease_end = kOpen;  // ns, by the client's validity; kOpen if unknown
  std::vector<Extension> extensions;  // in time order
  const Op* lost = nullptr;  // the lock-lost notice that ended it, if any
  const Op* acquire_invoke = nullptr;
  const Op* acquire_done = nullptr;
  const Op* release_invoke = nullptr;  // null when never released
  bool certain = true;     // false: an info acquire that may not have happened
  bool shared = false;     // a read hold (rw-lock checker only)
  // Valid while its client's session is (ZooKeeper): lease_end is kOpen
  // until a lock-lost notice says when the client was cut off.
  bool session_lease = false;
  // True for an info acquire proven by an ok release of its token: the lock
  // was held at some moment of [start, end] (the release's own window), not
  // necessarily throughout, since a timed-out SET may run late.
  bool window = false;
};

// Lease lengths beyond this are taken as unknown rather than overflow the
// nanosecond clock (imported histories may carry anything).
constexpr int64_t kMaxLeaseMs = int64_t{1} << 40;

// The hold's lease end as its holder knew it at `t`: the acquire's, extended
// by every renewal or re-entry it had learnt of by then.
int64_t LeaseEndAt(const Hold& h, int64_t t) {
  int64_t end = h.lease_end;
  for (const Extension& e : h.extensions) {
    if (e.known_at > t) break;
    if (end != kOpen) end = std::max(end, e.lease_end);
  }
  return end;
}

std::optional<int64_t> IntIn(const nlohmann::json& value, const char* name) {
  if (!value.is_object()) return std::nullopt;
  auto it = value.find(name);
  if (it == value.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
}

// `at`: the overlap's start, when the lease end is judged; `with_mode`: say
// whether the hold was a read or a write one.
nlohmann::json HolderJson(const Hold& h, int64_t at, bool with_mode) {
  nlohmann::json j{{"process", h.process},
                   {"acquire", OpRef(*h.acquire_done)},
                   {"release", h.release_invoke ? OpRef(*h.release_invoke) : nullptr},
                   {"start", h.start},
                   {"end", h.end == kOpen ? nlohmann::json(nullptr) : nlohmann::json(h.end)}};
  const int64_t lease_end = LeaseEndAt(h, at);
  if (lease_end != kOpen) j["lease_end"] = lease_end;
  if (auto v = IntIn(h.acquire_done->value, "validity_ms")) j["validity_ms"] = *v;
  if (!h.extensions.empty()) j["renewals"] = h.extensions.size();
  if (h.lost != nullptr) j["lock_lost"] = OpRef(*h.lost);
  if (h.session_lease) j["session_lease"] = true;
  if (!h.certain) j["possible"] = true;
  if (with_mode) j["mode"] = h.shared ? "read" : "write";
  return j;
}

bool IsReadAcquire(const Op& invoke) {
  if (!invoke.value.is_object()) return false;
  auto it = invoke.value.find("mode");
  return it != invoke.value.end() && it->is_string() && it->get<std::string>() == "read";
}

// Extracts holds per key from a history. Release invokes are matched to the
// hold of the same process and key; ok releases of info acquires' tokens turn
// those into certain holds.
class HoldCollector {
 public:
  HoldCollector(const History& history, HoldModes modes) : history_(history), modes_(modes) {}

  std::map<std::string, std::vector<Hold>> Collect(const std::vector<int64_t>& completion_of) {
    for (size_t i = 0; i < history_.size(); ++i) {
      const Op& op = history_[i];
      if (IsLockEvent(op)) {
        OnLockEvent(op);
        continue;
      }
      if (!op.is_client() || op.type != OpType::kInvoke) continue;
      const int64_t done_pos = completion_of[i];
      const Op* done = done_pos >= 0 ? &history_[done_pos] : nullptr;
      if (IsReentry(op)) {  // nested in the outer hold, which stays the hold
        if (op.f == "acquire" && done != nullptr) OnReentry(op, *done);
      } else if (op.f == "acquire") {
        if (done != nullptr && done->type != OpType::kFail) OnAcquire(op, *done);
      } else if (op.f == "release") {
        OnRelease(op, done);
      }
    }
    return std::move(holds_);
  }

 private:
  // The open hold of (process, key) that `token` names (any, when either
  // side has no token), or null.
  Hold* OpenHold(int64_t process, const std::string& key, const std::string& token) {
    auto it = open_.find({process, key});
    if (it == open_.end()) return nullptr;
    Hold& h = holds_[key][it->second];
    const std::string held = TokenOf(*h.acquire_done);
    if (!token.empty() && !held.empty() && token != held) return nullptr;
    return &h;
  }

  void OnLockEvent(const Op& op) {
    Hold* h = OpenHold(op.process, op.key, TokenOf(op));
    if (h == nullptr) return;
    if (op.f == kLockLostOp) {  // the holder knows: its hold ends here
      h->end = op.time;
      h->lost = &op;
      // A session's lock was in doubt from the moment it was cut off.
      if (auto cut = CutOffOf(op); cut && h->session_lease) h->lease_end = *cut;
      open_.erase({op.process, op.key});
    } else if (auto end = LeaseEndOf(op)) {
      h->extensions.push_back({op.time, *end});
    }
  }

  void OnReentry(const Op& op, const Op& done) {
    Hold* h = OpenHold(op.process, op.key, TokenOf(done));
    if (auto end = LeaseEndOf(done); h != nullptr && end) {
      h->extensions.push_back({done.time, *end});
    }
  }

  // An acquire that ended ok or info.
  void OnAcquire(const Op& op, const Op& done) {
    Hold h;
    h.process = op.process;
    h.acquire_invoke = &op;
    h.acquire_done = &done;
    h.shared = modes_ == HoldModes::kReadWrite && IsReadAcquire(op);
    auto& list = holds_[op.key];
    if (done.type == OpType::kOk) {
      h.start = done.time;
      if (auto end = LeaseEndOf(done)) h.lease_end = *end;
      h.session_lease = HasSessionLease(done);
      open_[{op.process, op.key}] = list.size();
      list.push_back(h);
      return;
    }
    // info: may have happened
    h.certain = false;
    h.start = op.time;
    if (auto lease = IntIn(op.value, "lease_ms"); lease && *lease >= 0 && *lease < kMaxLeaseMs) {
      h.end = op.time + *lease * kNsPerMs;
      h.lease_end = h.end;
    }
    std::string token = TokenOf(done);
    if (token.empty()) token = TokenOf(op);
    if (!token.empty()) possible_by_token_[token] = {op.key, list.size()};
    list.push_back(h);
  }

  void OnRelease(const Op& op, const Op* done) {
    auto it = open_.find({op.process, op.key});
    if (it != open_.end()) {
      Hold& h = holds_[op.key][it->second];
      h.end = op.time;
      h.release_invoke = &op;
      open_.erase(it);
      return;
    }
    // A release of an info acquire's token that succeeded proves the
    // acquire took effect and was held when this release executed.
    if (done == nullptr || done->type != OpType::kOk) return;
    auto pt = possible_by_token_.find(TokenOf(op));
    if (pt == possible_by_token_.end()) return;
    Hold& h = holds_[pt->second.first][pt->second.second];
    h.certain = true;
    h.window = true;
    h.start = op.time;
    h.end = done->time;
    h.release_invoke = &op;
    possible_by_token_.erase(pt);
  }

  const History& history_;
  const HoldModes modes_;
  std::map<std::string, std::vector<Hold>> holds_;
  // (process, key) -> position in holds_[key] of the open hold.
  std::map<std::pair<int64_t, std::string>, size_t> open_;
  // token -> (key, position) of a possible hold from an info acquire.
  std::unordered_map<std::string, std::pair<std::string, size_t>> possible_by_token_;
};

std::map<std::string, std::vector<Hold>> CollectHolds(const History& history,
                                                      const std::vector<int64_t>& completion_of,
                                                      HoldModes modes) {
  return HoldCollector(history, modes).Collect(completion_of);
}

}  // namespace

CheckResult DoubleHolderChecker::CheckWhole(const History& history) const {
  CheckResult result;
  const auto completion_of = PairCompletions(history);
  auto holds_by_key = CollectHolds(history, completion_of, modes_);
  const bool read_write = modes_ == HoldModes::kReadWrite;

  int64_t unsafe_grants = 0, expired_lease_uses = 0, possible = 0, total_holds = 0;
  int64_t read_holds = 0, reader_overlaps = 0, possible_reader_overlaps = 0;

  for (auto& [key, holds] : holds_by_key) {
    std::sort(holds.begin(), holds.end(),
              [](const Hold& a, const Hold& b) { return a.start < b.start; });
    total_holds += static_cast<int64_t>(holds.size());
    for (const Hold& h : holds) read_holds += h.shared ? 1 : 0;
    // Sweep: `active` holds positions whose interval may still overlap.
    std::vector<size_t> active;
    for (size_t i = 0; i < holds.size(); ++i) {
      const Hold& b = holds[i];
      std::erase_if(active, [&](size_t j) { return holds[j].end <= b.start; });
      for (size_t j : active) {
        const Hold& a = holds[j];
        if (a.process == b.process) continue;
        // A window hold overlaps for certain only with a hold covering the
        // whole window: the proven moment may be anywhere in it.
        auto covers = [](const Hold& outer, const Hold& w) {
          return !w.window || (outer.start <= w.start && outer.end >= w.end);
        };
        const bool sure = a.certain && b.certain && covers(a, b) && covers(b, a);
        if (a.shared && b.shared) {  // readers share: no anomaly
          ++(sure ? reader_overlaps : possible_reader_overlaps);
          continue;
        }
        if (!sure) {
          ++possible;
          continue;
        }
        const int64_t from = b.start;
        const bool both_valid = from < std::min(LeaseEndAt(a, from), LeaseEndAt(b, from));
        ++(both_valid ? unsafe_grants : expired_lease_uses);
        if (result.anomalies.size() >= max_listed_) continue;
        const int64_t to = std::min(a.end, b.end);
        nlohmann::json anomaly{
            {"type", "double-holder"},
            {"class", both_valid ? "unsafe-grant" : "expired-lease-use"},
            {"key", key},
            {"holders", {HolderJson(a, from, read_write), HolderJson(b, from, read_write)}},
            {"overlap_ns", {from, to == kOpen ? nlohmann::json(nullptr) : nlohmann::json(to)}},
            {"ops", {OpRef(*a.acquire_done), OpRef(*b.acquire_done)}}};
        for (const Hold* h : {&a, &b}) {
          if (h->release_invoke) anomaly["ops"].push_back(OpRef(*h->release_invoke));
          if (h->lost) anomaly["ops"].push_back(OpRef(*h->lost));
        }
        result.anomalies.push_back(std::move(anomaly));
      }
      active.push_back(i);
    }
  }

  if (unsafe_grants + expired_lease_uses > 0) result.valid = Validity::kFalse;
  result.stats = {{"holds", total_holds},
                  {"double_holders", unsafe_grants + expired_lease_uses},
                  {"unsafe_grants", unsafe_grants},
                  {"expired_lease_uses", expired_lease_uses},
                  {"possible_overlaps", possible}};
  result.summary = std::to_string(unsafe_grants + expired_lease_uses) + " double holders: " +
                   std::to_string(unsafe_grants) + " unsafe grants, " +
                   std::to_string(expired_lease_uses) + " expired-lease uses";
  if (read_write) {
    result.stats["read_holds"] = read_holds;
    result.stats["write_holds"] = total_holds - read_holds;
    result.stats["reader_overlaps"] = reader_overlaps;
    result.stats["possible_reader_overlaps"] = possible_reader_overlaps;
    result.summary = std::to_string(unsafe_grants + expired_lease_uses) +
                     " overlaps with a writer: " + std::to_string(unsafe_grants) +
                     " unsafe grants, " + std::to_string(expired_lease_uses) +
                     " expired-lease uses; " + std::to_string(reader_overlaps) +
                     " reader overlaps (allowed)";
  }
  return result;
}

}  // namespace locksmith
