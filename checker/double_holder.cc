#include "checker/double_holder.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include "base/ceil_millis.h"
#include "checker/completion_pairer.h"
#include "checker/leased_lock_checker.h"

namespace locksmith {
namespace {

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
  // Position of its acquire's invoke: holds that start at the same time
  // keep the order of their invokes.
  int64_t seq = 0;
  std::vector<Extension> extensions;  // in time order
  std::optional<Op> lost;  // the lock-lost notice that ended it (RefOnly), if any
  Op acquire_done;         // RefOnly
  std::string token;       // the acquire's token, or ""
  std::optional<int64_t> validity_ms;  // what the acquire's ok said
  std::optional<Op> release_invoke;  // RefOnly; none when never released
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

// Whether `a` comes before `b` in the sweep's order (by start, then invoke).
bool SweepsBefore(const Hold& a, const Hold& b) {
  return a.start != b.start ? a.start < b.start : a.seq < b.seq;
}

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
                   {"acquire", OpRef(h.acquire_done)},
                   {"release", h.release_invoke ? OpRef(*h.release_invoke) : nullptr},
                   {"start", h.start},
                   {"end", h.end == kOpen ? nlohmann::json(nullptr) : nlohmann::json(h.end)}};
  const int64_t lease_end = LeaseEndAt(h, at);
  if (lease_end != kOpen) j["lease_end"] = lease_end;
  if (h.validity_ms) j["validity_ms"] = *h.validity_ms;
  if (!h.extensions.empty()) j["renewals"] = h.extensions.size();
  if (h.lost) j["lock_lost"] = OpRef(*h.lost);
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

// What two holds of one key that overlap amount to.
enum class PairKind {
  kNone,                   // no overlap (or one process)
  kUnsafeGrant,            // both certain, both leases valid
  kExpiredLeaseUse,        // both certain, one lease over
  kReaderOverlap,          // two certain read holds: allowed
  kPossibleReaderOverlap,  // two read holds, one possible
  kPossible,               // an overlap with a possible hold
};

// Where an anomaly stands in the sweep's order: by key, then by the later
// hold's place, then the earlier's.
struct SweepPlace {
  std::string key;
  int64_t later_start = 0, later_seq = 0, earlier_start = 0, earlier_seq = 0;
  auto operator<=>(const SweepPlace&) const = default;
};

// The counts and the listed anomalies of every pair judged. A pair is
// judged once, whichever of its holds closes last; the first `max_listed`
// anomalies in the sweep's order are kept (a bounded set, sorted at the end).
class OverlapTally {
 public:
  OverlapTally(size_t max_listed, bool read_write)
      : max_listed_(max_listed), read_write_(read_write) {}

  PairKind Judge(const std::string& key, const Hold& x, const Hold& y) {
    const Hold& a = SweepsBefore(x, y) ? x : y;
    const Hold& b = SweepsBefore(x, y) ? y : x;
    if (a.process == b.process || a.end <= b.start) return PairKind::kNone;
    // A window hold overlaps for certain only with a hold covering the
    // whole window: the proven moment may be anywhere in it.
    auto covers = [](const Hold& outer, const Hold& w) {
      return !w.window || (outer.start <= w.start && outer.end >= w.end);
    };
    const bool sure = a.certain && b.certain && covers(a, b) && covers(b, a);
    if (a.shared && b.shared) {
      return Add(sure ? PairKind::kReaderOverlap : PairKind::kPossibleReaderOverlap, 1);
    }
    if (!sure) return Add(PairKind::kPossible, 1);
    const int64_t from = b.start;
    const bool both_valid = from < std::min(LeaseEndAt(a, from), LeaseEndAt(b, from));
    const PairKind kind = Add(both_valid ? PairKind::kUnsafeGrant : PairKind::kExpiredLeaseUse, 1);
    SweepPlace place{key, b.start, b.seq, a.start, a.seq};
    if (max_listed_ > 0 && (!cutoff_ || place < *cutoff_)) {
      listed_.emplace_back(std::move(place), Anomaly(key, a, b, both_valid));
      if (listed_.size() >= 2 * max_listed_) Trim();
    }
    return kind;
  }

  // Counts `n` pairs of `kind` (negative: takes back pairs counted before).
  PairKind Add(PairKind kind, int64_t n) {
    switch (kind) {
      case PairKind::kUnsafeGrant: unsafe_grants_ += n; break;
      case PairKind::kExpiredLeaseUse: expired_lease_uses_ += n; break;
      case PairKind::kReaderOverlap: reader_overlaps_ += n; break;
      case PairKind::kPossibleReaderOverlap: possible_reader_overlaps_ += n; break;
      case PairKind::kPossible: possible_ += n; break;
      case PairKind::kNone: break;
    }
    return kind;
  }

  void Finish(CheckResult& result, int64_t total_holds, int64_t read_holds);

 private:
  nlohmann::json Anomaly(const std::string& key, const Hold& a, const Hold& b,
                         bool both_valid) const {
    const int64_t from = b.start;
    const int64_t to = std::min(a.end, b.end);
    nlohmann::json anomaly{
        {"type", "double-holder"},
        {"class", both_valid ? "unsafe-grant" : "expired-lease-use"},
        {"key", key},
        {"holders", {HolderJson(a, from, read_write_), HolderJson(b, from, read_write_)}},
        {"overlap_ns", {from, to == kOpen ? nlohmann::json(nullptr) : nlohmann::json(to)}},
        {"ops", {OpRef(a.acquire_done), OpRef(b.acquire_done)}}};
    for (const Hold* h : {&a, &b}) {
      if (h->release_invoke) anomaly["ops"].push_back(OpRef(*h->release_invoke));
      if (h->lost) anomaly["ops"].push_back(OpRef(*h->lost));
    }
    return anomaly;
  }

  void Trim() {
    std::sort(listed_.begin(), listed_.end(),
              [](const auto& l, const auto& r) { return l.first < r.first; });
    if (listed_.size() > max_listed_) listed_.resize(max_listed_);
    if (listed_.size() == max_listed_) cutoff_ = listed_.back().first;
  }

  const size_t max_listed_;
  const bool read_write_;
  std::vector<std::pair<SweepPlace, nlohmann::json>> listed_;
  std::optional<SweepPlace> cutoff_;  // nothing at or after it can be listed
  int64_t unsafe_grants_ = 0, expired_lease_uses_ = 0, possible_ = 0;
  int64_t reader_overlaps_ = 0, possible_reader_overlaps_ = 0;
};

void OverlapTally::Finish(CheckResult& result, int64_t total_holds, int64_t read_holds) {
  Trim();
  for (auto& [place, anomaly] : listed_) result.anomalies.push_back(std::move(anomaly));
  const int64_t double_holders = unsafe_grants_ + expired_lease_uses_;
  if (double_holders > 0) result.valid = Validity::kFalse;
  result.stats = {{"holds", total_holds},
                  {"double_holders", double_holders},
                  {"unsafe_grants", unsafe_grants_},
                  {"expired_lease_uses", expired_lease_uses_},
                  {"possible_overlaps", possible_}};
  result.summary = std::to_string(double_holders) + " double holders: " +
                   std::to_string(unsafe_grants_) + " unsafe grants, " +
                   std::to_string(expired_lease_uses_) + " expired-lease uses";
  if (!read_write_) return;
  result.stats["read_holds"] = read_holds;
  result.stats["write_holds"] = total_holds - read_holds;
  result.stats["reader_overlaps"] = reader_overlaps_;
  result.stats["possible_reader_overlaps"] = possible_reader_overlaps_;
  result.summary = std::to_string(double_holders) + " overlaps with a writer: " +
                   std::to_string(unsafe_grants_) + " unsafe grants, " +
                   std::to_string(expired_lease_uses_) + " expired-lease uses; " +
                   std::to_string(reader_overlaps_) + " reader overlaps (allowed)";
}

// A possible hold (an info acquire) and the pairs it was counted in, so
// that they can be taken back if a release of its token proves it.
struct PossibleHold {
  Hold hold;
  std::map<PairKind, int64_t> counted;  // pairs with closed certain holds
  std::map<int64_t, PairKind> partners;  // seq -> the pair with another possible hold
};

// The holds of one key still needed: closed certain ones a hold still to
// close could overlap, and the possible ones.
struct KeyHolds {
  std::vector<Hold> closed;
  std::map<int64_t, PossibleHold> possible;  // by seq
};

// A client invoke still open: where it stands and what its completion will
// need of its value (read once here, so that the pairing keeps no values).
struct OpenInvoke {
  int64_t position = 0;
  int64_t time = 0;
  bool reentry = false;
  bool read = false;  // "mode": "read"
  std::optional<int64_t> lease_ms;
  std::string token;
};

// A release invoke of no open hold: an ok completion may prove a possible
// hold of its token.
struct WaitingRelease {
  Op invoke;  // RefOnly
  std::string token;
};

// How far behind history order a time may lag and still be judged as if
// it had come in order.
constexpr int64_t kTimeSlackNs = 10 * 1'000'000;
// How often (in ops) holds no longer needed are dropped.
constexpr int64_t kDropEvery = 1024;

class DoubleHolderPass : public CheckPass {
 public:
  DoubleHolderPass(size_t max_listed, HoldModes modes)
      : modes_(modes), tally_(max_listed, modes == HoldModes::kReadWrite) {}

  void Observe(const Op& op) override {
    const int64_t position = position_++;
    now_ = op.time;
    const CompletionPairer::Pairing pairing = pairer_.Observe(op);
    if (IsLockEvent(op)) {
      OnLockEvent(op);
    } else if (const int64_t crashed = CrashedProcessOf(op); crashed >= 0) {
      open_invokes_.erase(crashed);  // its acquire never completes: no hold starts there
    } else if (op.is_client() && op.type == OpType::kInvoke) {
      OnInvoke(position, op);
    } else if (op.is_client() && pairing.invoke) {
      OnCompletion(*pairing.invoke, op);
    }
    if (position % kDropEvery == kDropEvery - 1) DropWhatNoHoldCanOverlap();
  }

  CheckResult Finish() override {
    for (auto& [holder, hold] : open_) Close(holder.second, std::move(hold));
    open_.clear();
    CheckResult result;
    tally_.Finish(result, total_holds_, read_holds_);
    return result;
  }

 private:
  // What only an acquire's completion reads of its invoke (OnAcquire) is
  // read of acquires only.
  void OnInvoke(int64_t position, const Op& op) {
    const bool acquire = op.f == "acquire";
    const bool reentry = IsReentry(op);
    OpenInvoke& facts = open_invokes_[op.process];
    facts = {position, op.time, reentry, modes_ == HoldModes::kReadWrite && IsReadAcquire(op),
             acquire ? IntIn(op.value, "lease_ms") : std::nullopt,
             acquire ? TokenOf(op) : std::string()};
    waiting_releases_.erase(op.process);
    if (op.f == "release" && !reentry) OnReleaseInvoke(op);
  }

  void OnCompletion(const Op& invoke, const Op& done) {
    OpenInvoke facts;
    if (auto it = open_invokes_.find(invoke.process); it != open_invokes_.end()) {
      facts = std::move(it->second);
      open_invokes_.erase(it);
    }
    if (facts.reentry) {  // nested in the outer hold, which stays the hold
      if (invoke.f == "acquire") OnReentry(invoke, done);
    } else if (invoke.f == "acquire") {
      if (done.type != OpType::kFail) OnAcquire(invoke, facts, done);
    } else if (invoke.f == "release") {
      auto waiting = waiting_releases_.find(invoke.process);
      if (waiting == waiting_releases_.end()) return;
      if (done.type == OpType::kOk) ProvePossibleHold(waiting->second, done);
      waiting_releases_.erase(waiting);
    }
  }

  // The open hold of (process, key) that `token` names (any, when either
  // side has no token), or null.
  Hold* OpenHold(int64_t process, const std::string& key, const std::string& token) {
    auto it = open_.find({process, key});
    if (it == open_.end()) return nullptr;
    if (!token.empty() && !it->second.token.empty() && token != it->second.token) return nullptr;
    return &it->second;
  }

  void OnLockEvent(const Op& op) {
    Hold* h = OpenHold(op.process, op.key, TokenOf(op));
    if (h == nullptr) return;
    if (op.f == kLockLostOp) {  // the holder knows: its hold ends here
      h->end = op.time;
      h->lost = RefOnly(op);
      // A session's lock was in doubt from the moment it was cut off.
      if (auto cut = CutOffOf(op); cut && h->session_lease) h->lease_end = *cut;
      auto it = open_.find({op.process, op.key});
      Close(op.key, std::move(it->second));
      open_.erase(it);
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

  // An acquire (`op`, RefOnly, and what its value said) that ended ok or info.
  void OnAcquire(const Op& op, const OpenInvoke& facts, const Op& done) {
    const int64_t seq = facts.position;
    Hold h;
    h.process = op.process;
    h.seq = seq;
    h.acquire_done = RefOnly(done);
    h.token = TokenOf(done);
    h.validity_ms = IntIn(done.value, "validity_ms");
    h.shared = modes_ == HoldModes::kReadWrite && facts.read;
    ++total_holds_;
    read_holds_ += h.shared ? 1 : 0;
    if (done.type == OpType::kOk) {
      h.start = done.time;
      if (auto end = LeaseEndOf(done)) h.lease_end = *end;
      h.session_lease = HasSessionLease(done);
      auto [it, fresh] = open_.try_emplace({op.process, op.key});
      // An acquire over the process's own open hold: that one is never
      // released now, so it is closed with no end.
      if (!fresh) Close(op.key, std::move(it->second));
      it->second = std::move(h);
      return;
    }
    // info: may have happened
    h.certain = false;
    h.start = op.time;
    if (const auto& lease = facts.lease_ms; lease && *lease >= 0 && *lease < kMaxLeaseMs) {
      h.end = op.time + *lease * kNsPerMs;
      h.lease_end = h.end;
    }
    const std::string& token = h.token.empty() ? facts.token : h.token;
    if (!token.empty()) possible_by_token_[token] = {op.key, seq};
    AddPossible(op.key, std::move(h));
  }

  void OnReleaseInvoke(const Op& op) {
    auto it = open_.find({op.process, op.key});
    if (it == open_.end()) {  // perhaps a possible hold's: its completion says
      waiting_releases_[op.process] = {RefOnly(op), TokenOf(op)};
      return;
    }
    it->second.end = op.time;
    it->second.release_invoke = RefOnly(op);
    Close(op.key, std::move(it->second));
    open_.erase(it);
  }

  void ProvePossibleHold(const WaitingRelease& release, const Op& done);
  void Close(const std::string& key, Hold hold);
  void AddPossible(const std::string& key, Hold hold);
  void DropWhatNoHoldCanOverlap();

  const HoldModes modes_;
  OverlapTally tally_;
  CompletionPairer pairer_{false};
  int64_t position_ = 0;
  int64_t now_ = 0;
  int64_t total_holds_ = 0, read_holds_ = 0;
  std::map<std::string, KeyHolds> keys_;
  std::map<std::pair<int64_t, std::string>, Hold> open_;  // (process, key) -> its hold
  // token -> (key, seq) of a possible hold from an info acquire.
  std::unordered_map<std::string, std::pair<std::string, int64_t>> possible_by_token_;
  std::unordered_map<int64_t, OpenInvoke> open_invokes_;  // by process
  // Releases of no open hold, by process, until their completion.
  std::unordered_map<int64_t, WaitingRelease> waiting_releases_;
};

// A closed certain hold against every kept hold of its key.
void DoubleHolderPass::Close(const std::string& key, Hold hold) {
  KeyHolds& k = keys_[key];
  for (const Hold& other : k.closed) tally_.Judge(key, hold, other);
  for (auto& [seq, p] : k.possible) {
    const PairKind kind = tally_.Judge(key, hold, p.hold);
    if (kind != PairKind::kNone) ++p.counted[kind];
  }
  k.closed.push_back(std::move(hold));
}

void DoubleHolderPass::AddPossible(const std::string& key, Hold hold) {
  KeyHolds& k = keys_[key];
  PossibleHold added{std::move(hold), {}, {}};
  for (const Hold& other : k.closed) {
    const PairKind kind = tally_.Judge(key, added.hold, other);
    if (kind != PairKind::kNone) ++added.counted[kind];
  }
  for (auto& [seq, p] : k.possible) {
    const PairKind kind = tally_.Judge(key, added.hold, p.hold);
    if (kind == PairKind::kNone) continue;
    added.partners[seq] = kind;
    p.partners[added.hold.seq] = kind;
  }
  const int64_t seq = added.hold.seq;
  k.possible.insert_or_assign(seq, std::move(added));
}

// A release of an info acquire's token that succeeded proves the acquire
// took effect and was held when this release executed: the pairs it was
// counted in as possible are taken back, and it is judged again as a
// certain hold over the release's window.
void DoubleHolderPass::ProvePossibleHold(const WaitingRelease& release, const Op& done) {
  auto pt = possible_by_token_.find(release.token);
  if (pt == possible_by_token_.end()) return;
  const auto [key, seq] = pt->second;
  possible_by_token_.erase(pt);
  KeyHolds& k = keys_[key];
  auto it = k.possible.find(seq);
  if (it == k.possible.end()) return;
  for (const auto& [kind, n] : it->second.counted) tally_.Add(kind, -n);
  for (const auto& [partner, kind] : it->second.partners) {
    tally_.Add(kind, -1);
    // A partner dropped since (it ended before anything open) has no list.
    if (auto p = k.possible.find(partner); p != k.possible.end()) p->second.partners.erase(seq);
  }
  Hold h = std::move(it->second.hold);
  k.possible.erase(it);
  h.certain = true;
  h.window = true;
  h.start = release.invoke.time;
  h.end = done.time;
  h.release_invoke = release.invoke;
  Close(key, std::move(h));
}

// Drops the closed holds that no hold still to close can overlap: one
// closing later starts at an invoke still open or later (an ok acquire at
// its completion, a proven one at its release's invoke), or at an open
// hold's start. Possible holds stay while a release may prove them.
void DoubleHolderPass::DropWhatNoHoldCanOverlap() {
  int64_t horizon = now_;
  for (const auto& [process, invoke] : open_invokes_) horizon = std::min(horizon, invoke.time);
  std::map<std::string, int64_t> open_start;
  for (const auto& [holder, hold] : open_) {
    auto [it, fresh] = open_start.try_emplace(holder.second, hold.start);
    if (!fresh) it->second = std::min(it->second, hold.start);
  }
  std::set<std::pair<std::string, int64_t>> provable;
  for (const auto& [token, place] : possible_by_token_) provable.insert(place);
  for (auto it = keys_.begin(); it != keys_.end();) {
    int64_t floor = horizon;
    if (auto o = open_start.find(it->first); o != open_start.end()) {
      floor = std::min(floor, o->second);
    }
    floor -= kTimeSlackNs;
    KeyHolds& k = it->second;
    std::erase_if(k.closed, [&](const Hold& h) { return h.end <= floor; });
    std::erase_if(k.possible, [&](const auto& entry) {
      return entry.second.hold.end <= floor && !provable.contains({it->first, entry.first});
    });
    it = k.closed.empty() && k.possible.empty() ? keys_.erase(it) : std::next(it);
  }
}

}  // namespace

std::unique_ptr<CheckPass> DoubleHolderChecker::Start() const {
  return std::make_unique<DoubleHolderPass>(max_listed_, modes_);
}

}  // namespace locksmith
