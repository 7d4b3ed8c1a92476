#include "backends/zk_lock_client.h"

#include <zookeeper/zookeeper.h>

#include <algorithm>

namespace locksmith {
namespace asio = boost::asio;
using Clock = ZkSession::Clock;
using std::chrono::milliseconds;

namespace {

constexpr char kFairRoot[] = "/locksmith";
constexpr char kNaiveRoot[] = "/locksmith-naive";
constexpr char kReadWriteRoot[] = "/locksmith-rw";
constexpr char kProtectedPrefix[] = "_c_";
// Node kinds: "_c_<guid>-<kind>-<sequence>".
constexpr char kFairKind[] = "lock";
constexpr char kReadKind[] = "read";
constexpr char kWriteKind[] = "write";
// Arguments of co_await calls are named objects, never temporaries: GCC 12
// destroys some temporaries of a co_await expression twice.
const std::string kNone;

AcquireResult Failed(Outcome outcome, std::string token, std::string error) {
  AcquireResult r;
  r.outcome = outcome;
  r.token = std::move(token);
  r.error = std::move(error);
  return r;
}

std::string Basename(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

int64_t MsSince(Clock::time_point t) {
  return std::chrono::duration_cast<milliseconds>(Clock::now() - t).count();
}

}  // namespace

std::vector<std::string> ZkRecipeNames() { return {"zk-fair", "zk-naive", "zk-rw"}; }
std::string ZkDefaultRecipe() { return ZkRecipeNames().front(); }
std::vector<std::string> ZkSharedRecipeNames() { return {"zk-rw"}; }

namespace {

// Where the "-<kind>-" before the sequence starts, or npos.
size_t KindAt(const std::string& name, const char* kind) {
  const std::string marker = std::string("-") + kind + "-";
  const size_t at = name.rfind(marker);
  if (at == std::string::npos || at + marker.size() != name.rfind('-') + 1) {
    return std::string::npos;
  }
  return at;
}

}  // namespace

int64_t ZkSequenceOf(const std::string& name) {
  const size_t dash = name.rfind('-');
  bool known_kind = false;
  for (const char* kind : {kFairKind, kReadKind, kWriteKind}) {
    known_kind = known_kind || KindAt(name, kind) != std::string::npos;
  }
  if (!known_kind) return -1;
  const std::string digits = name.substr(dash + 1);
  if (digits.empty() || digits.size() > 18 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return -1;
  }
  return std::stoll(digits);
}

std::vector<std::string> ZkSortedBySequence(std::vector<std::string> children) {
  std::erase_if(children, [](const std::string& c) { return ZkSequenceOf(c) < 0; });
  std::stable_sort(children.begin(), children.end(), [](const auto& a, const auto& b) {
    return ZkSequenceOf(a) < ZkSequenceOf(b);
  });
  return children;
}

bool ZkIsReadNode(const std::string& name) { return KindAt(name, kReadKind) != std::string::npos; }

int64_t ZkBlockerOf(const std::vector<std::string>& sorted, size_t at) {
  if (at == 0 || at >= sorted.size()) return -1;
  if (!ZkIsReadNode(sorted[at])) return static_cast<int64_t>(at) - 1;
  for (size_t i = at; i-- > 0;) {
    if (!ZkIsReadNode(sorted[i])) return static_cast<int64_t>(i);
  }
  return -1;
}

Result<std::unique_ptr<LockClient>> MakeZkLockClient(const std::string& name,
                                                     asio::any_io_executor executor,
                                                     ZkLockClientOptions options, uint64_t seed) {
  ZkRecipe recipe;
  if (name == "zk-fair") {
    recipe = ZkRecipe::kFair;
  } else if (name == "zk-naive") {
    recipe = ZkRecipe::kNaive;
  } else if (name == "zk-rw") {
    recipe = ZkRecipe::kReadWrite;
  } else {
    return Error{"unknown zookeeper lock client '" + name + "' (known: " +
                 JoinNames(ZkRecipeNames()) + ")"};
  }
  return std::unique_ptr<LockClient>(
      new ZkLockClient(std::move(executor), std::move(options), recipe, seed));
}

ZkLockClient::ZkLockClient(asio::any_io_executor executor, ZkLockClientOptions options,
                           ZkRecipe recipe, uint64_t seed)
    : options_(std::move(options)),
      recipe_(recipe),
      relay_(executor, options_.peers, options_.source_address),
      session_(executor, "", options_.session_timeout),
      lost_timer_(executor),
      tokens_(seed) {
  session_.SetSessionListener([alive = std::weak_ptr<bool>(alive_), this] {
    if (!alive.expired()) OnSessionEvent();
  });
}

asio::awaitable<Status> ZkLockClient::Connect() {
  auto local = relay_.Start();
  if (!local) co_return Error{local.error()};
  std::string connect;
  for (const auto& l : *local) {
    connect += (connect.empty() ? "" : ",") + l.address + ":" + std::to_string(l.port);
  }
  session_.set_connect_string(connect);
  if (Status s = session_.Open(); !s) co_return s;
  const auto deadline = Clock::now() + std::max(options_.timeout, options_.session_timeout);
  if (!co_await session_.WaitConnected(deadline)) {
    co_return Error{"no zookeeper session within " +
                    std::to_string(MsSince(deadline - std::max(options_.timeout,
                                                               options_.session_timeout))) +
                    " ms"};
  }
  co_return OkStatus();
}

void ZkLockClient::Close() {
  closed_ = true;
  lost_timer_.cancel();
  relay_.Close();
  session_.Close();
}

void ZkLockClient::Crash() {
  // The library's close request stays in the frozen relay's socket buffer
  // and is dropped with it.
  relay_.SetFrozen(true);
  Close();
}

int64_t ZkLockClient::ValidityMs(milliseconds lease, Clock::time_point proof_sent) const {
  const int64_t session_left = session_.negotiated_timeout().count() - MsSince(proof_sent);
  return std::min<int64_t>(lease.count(), session_left);
}

std::string ZkLockLostReason(bool expired, std::optional<Clock::time_point> suspended_since,
                             milliseconds session_timeout, Clock::time_point now) {
  if (expired) return "lock lost: the session expired";
  if (suspended_since && now - *suspended_since > session_timeout) {
    return "lock lost: cut off from the ensemble for " +
           std::to_string(
               std::chrono::duration_cast<milliseconds>(now - *suspended_since).count()) +
           " ms, longer than the session timeout (" + std::to_string(session_timeout.count()) +
           " ms)";
  }
  return "";
}

std::string ZkLockClient::LockLostReason() const {
  return ZkLockLostReason(session_.expired(), session_.suspended_since(),
                          session_.negotiated_timeout(), Clock::now());
}

void ZkLockClient::SetPaused(bool paused) {
  relay_.SetFrozen(paused);
  paused_ = paused;
  if (!paused) ReportLostLocks();
}

void ZkLockClient::OnSessionEvent() {
  ReportLostLocks();
  const auto since = session_.suspended_since();
  if (closed_ || !since || session_.expired()) return;
  lost_timer_.expires_at(*since + session_.negotiated_timeout() + milliseconds(1));
  lost_timer_.async_wait([alive = std::weak_ptr<bool>(alive_), this](boost::system::error_code ec) {
    if (ec || alive.expired()) return;
    ReportLostLocks();
  });
}

void ZkLockClient::ReportLostLocks() {
  if (closed_ || paused_ || !sink_) return;
  const std::string lost = LockLostReason();
  // Since when the session has been cut off: the locks of this session were
  // in doubt from then on (the cut that ended in their loss).
  const auto since = session_.suspended_since();
  std::vector<LockEvent> events;
  for (auto it = held_.begin(); it != held_.end();) {
    const bool old_session = it->second.generation != session_.generation();
    if (lost.empty() && !old_session) {
      ++it;
      continue;
    }
    // The holder stops here (no release): should the session live on after
    // all (the server had not expired it yet), the node is deleted by the
    // next call like an abandoned acquire's, so it cannot block the lock.
    if (!old_session) Abandon(it->second, it->first);
    events.push_back(LockEvent{LockEvent::Kind::kLost, it->second.key, it->first, Outcome::kOk, 0,
                               old_session ? "lock lost: the session expired" : lost});
    if (!old_session && since) events.back().cut_off_ms = MsSince(*since);
    it = held_.erase(it);
  }
  for (LockEvent& e : events) {
    ++locks_lost_;
    sink_(std::move(e));
  }
}

asio::awaitable<int> ZkLockClient::EnsureParents(const std::string& path,
                                                 Clock::time_point deadline) {
  if (parents_generation_ != session_.generation()) {
    parents_made_.clear();
    parents_generation_ = session_.generation();
  }
  for (size_t at = path.find('/', 1); at != std::string::npos; at = path.find('/', at + 1)) {
    const std::string parent = path.substr(0, at);
    if (parents_made_.count(parent)) continue;
    ZkReply r = co_await session_.Create(parent, kNone, ZOO_PERSISTENT, deadline);
    if (r.rc != ZOK && r.rc != ZNODEEXISTS) co_return r.rc;
    parents_made_.insert(parent);
  }
  co_return ZOK;
}

asio::awaitable<void> ZkLockClient::CleanUpAbandoned(Clock::time_point deadline) {
  if (abandoned_generation_ != session_.generation()) {
    // The session those nodes belonged to expired: the server removed them.
    abandoned_guids_.clear();
    abandoned_nodes_.clear();
    abandoned_generation_ = session_.generation();
  }
  for (auto it = abandoned_guids_.begin(); it != abandoned_guids_.end();) {
    ZkReply children = co_await session_.Children(it->first, deadline);
    if (children.rc != ZOK) co_return;
    for (const auto& child : children.children) {
      for (auto g = it->second.begin(); g != it->second.end();) {
        if (child.find(*g) == std::string::npos) {
          ++g;
          continue;
        }
        const std::string path = it->first + "/" + child;
        ZkReply gone = co_await session_.Delete(path, deadline);
        if (gone.rc != ZOK && gone.rc != ZNONODE) co_return;
        g = it->second.erase(g);
      }
    }
    it = it->second.empty() ? abandoned_guids_.erase(it) : std::next(it);
  }
  for (auto it = abandoned_nodes_.begin(); it != abandoned_nodes_.end();) {
    ZkReply e = co_await session_.Exists(*it, false, deadline);
    if (e.rc == ZNONODE) {
      it = abandoned_nodes_.erase(it);
      continue;
    }
    if (e.rc != ZOK) co_return;
    if (e.stat && e.stat->ephemeral_owner == session_.session_id()) {
      ZkReply gone = co_await session_.Delete(*it, deadline);
      if (gone.rc != ZOK && gone.rc != ZNONODE) co_return;
    }
    it = abandoned_nodes_.erase(it);
  }
}

asio::awaitable<AcquireResult> ZkLockClient::Acquire(const std::string& key, milliseconds lease) {
  co_return co_await AcquireMode(key, lease, false);
}

asio::awaitable<AcquireResult> ZkLockClient::AcquireShared(const std::string& key,
                                                           milliseconds lease) {
  if (!SupportsShared()) co_return co_await LockClient::AcquireShared(key, lease);
  co_return co_await AcquireMode(key, lease, true);
}

asio::awaitable<AcquireResult> ZkLockClient::AcquireMode(const std::string& key,
                                                         milliseconds lease, bool shared) {
  if (closed_) co_return Failed(Outcome::kFail, "", "the client is closed");
  if (Status s = session_.ReopenIfExpired(); !s) co_return Failed(Outcome::kFail, "", s.error());
  const auto deadline = Clock::now() + std::max(options_.timeout, acquire_wait_);
  if (!co_await session_.WaitConnected(deadline)) {
    co_return Failed(Outcome::kFail, "", "not connected to the ensemble (nothing sent)");
  }
  co_await CleanUpAbandoned(deadline);
  if (recipe_ == ZkRecipe::kNaive) co_return co_await AcquireNaive(key, lease, deadline);
  const bool fair = recipe_ == ZkRecipe::kFair;
  const std::string root = fair ? kFairRoot : kReadWriteRoot;
  const std::string kind = fair ? kFairKind : shared ? kReadKind : kWriteKind;
  co_return co_await AcquireSequential(root, key, kind, lease, deadline);
}

asio::awaitable<AcquireResult> ZkLockClient::GiveUp(const AcquireResult& given_up,
                                                    const std::string& parent,
                                                    const std::string& guid,
                                                    const std::string& maybe_node) {
  AcquireResult result = given_up;
  std::string node = maybe_node;
  // A second budget to clean up after the wait's ran out.
  const auto deadline = Clock::now() + options_.timeout;
  const int64_t generation = session_.generation();
  if (session_.expired()) {
    // The server removed every ephemeral node of the session.
    result.outcome = Outcome::kFail;
    result.busy = false;  // no answer on the lock: the session ended
    result.error += "; the session expired: no node of ours is left";
    co_return result;
  }
  if (node.empty() && recipe_ != ZkRecipe::kNaive && co_await session_.WaitConnected(deadline)) {
    ZkReply children = co_await session_.Children(parent, deadline);
    if (children.rc == ZOK) {
      for (const auto& child : children.children) {
        if (child.find(guid) != std::string::npos) node = parent + "/" + child;
      }
    }
  }
  if (!node.empty() && co_await session_.WaitConnected(deadline)) {
    if (recipe_ == ZkRecipe::kNaive) {
      // The one lock node may be another client's: delete it only when it is
      // ours. It stays ours until we delete it (or our session expires), so
      // the check cannot go stale before the delete.
      ZkReply e = co_await session_.Exists(node, false, deadline);
      if (e.rc == ZNONODE || (e.rc == ZOK && e.stat &&
                              e.stat->ephemeral_owner != session_.session_id())) {
        node.clear();  // not ours now; a create of ours still in flight stays unknown
      } else if (e.rc != ZOK) {
        result.error += "; checking our node: " + ZkErrorText(e.rc);
        node.clear();
      } else {
        // Ours: delete it below.
      }
    }
    if (!node.empty()) {
      ZkReply gone = co_await session_.Delete(node, deadline);
      if (gone.rc == ZOK || gone.rc == ZNONODE) {
        result.outcome = Outcome::kFail;
        result.error += "; our node was removed";
        co_return result;
      }
      result.error += "; removing our node: " + ZkErrorText(gone.rc);
    }
  }
  if (result.outcome == Outcome::kUnknown) {
    // Remember it: the next call deletes it once it can see it.
    abandoned_generation_ = generation;
    if (recipe_ != ZkRecipe::kNaive) {
      abandoned_guids_[parent].insert(guid);
    } else {
      abandoned_nodes_.insert(parent);
    }
  }
  co_return result;
}

asio::awaitable<AcquireResult> ZkLockClient::AcquireSequential(const std::string& root,
                                                               const std::string& key,
                                                               const std::string& kind,
                                                               milliseconds lease,
                                                               Clock::time_point deadline) {
  const std::string parent = root + "/" + key;
  const std::string guid = tokens_.Next();
  const std::string child_path = parent + "/x";
  if (int rc = co_await EnsureParents(child_path, deadline); rc != ZOK) {
    co_return Failed(Outcome::kFail, guid, "creating " + parent + ": " + ZkErrorText(rc));
  }
  const SequentialNode node = co_await CreateSequential(parent, guid, kind, deadline);
  if (node.ended) co_return *node.ended;
  co_return co_await AwaitTurn(parent, key, guid, node, lease, deadline);
}

asio::awaitable<ZkLockClient::SequentialNode> ZkLockClient::CreateSequential(
    const std::string& parent, const std::string& guid, const std::string& kind,
    Clock::time_point deadline) {
  const std::string prefix = parent + "/" + kProtectedPrefix + guid + "-" + kind + "-";
  SequentialNode node;
  // The create; a lost reply is found again by the guid.
  while (node.path.empty()) {
    ZkReply made = co_await session_.Create(prefix, kNone, ZOO_EPHEMERAL_SEQUENTIAL, deadline);
    if (made.rc == ZOK) {
      node.path = made.path;
      node.czxid = made.stat ? made.stat->czxid : 0;
      break;
    }
    if (ZkDefinitelyNotApplied(made.rc)) {
      node.ended = Failed(Outcome::kFail, guid, "create: " + ZkErrorText(made.rc));
      co_return node;
    }
    const AcquireResult unknown =
        Failed(Outcome::kUnknown, guid, "create: " + ZkErrorText(made.rc));
    if (made.rc == ZkSession::kTimedOut || !co_await session_.WaitConnected(deadline)) {
      node.ended = co_await GiveUp(unknown, parent, guid, kNone);
      co_return node;
    }
    ZkReply children = co_await session_.Children(parent, deadline);
    if (children.rc != ZOK) {
      node.ended = co_await GiveUp(unknown, parent, guid, kNone);
      co_return node;
    }
    for (const auto& child : children.children) {
      if (child.find(guid) != std::string::npos) node.path = parent + "/" + child;
    }
    if (!node.path.empty()) {
      ZkReply e = co_await session_.Exists(node.path, false, deadline);
      if (e.rc != ZOK || !e.stat) {
        node.ended = co_await GiveUp(unknown, parent, guid, node.path);
        co_return node;
      }
      node.czxid = e.stat->czxid;
    }
  }
  co_return node;
}

asio::awaitable<AcquireResult> ZkLockClient::AwaitTurn(const std::string& parent,
                                                       const std::string& key,
                                                       const std::string& guid,
                                                       const SequentialNode& node,
                                                       milliseconds lease,
                                                       Clock::time_point deadline) {
  const std::string mine = Basename(node.path);
  while (true) {
    const auto proof_sent = Clock::now();
    ZkReply children = co_await session_.Children(parent, deadline);
    if (children.rc != ZOK) {
      const Outcome o = ZkDefinitelyNotApplied(children.rc) ? Outcome::kFail : Outcome::kUnknown;
      const AcquireResult r = Failed(o, guid, "listing waiters: " + ZkErrorText(children.rc));
      co_return co_await GiveUp(r, parent, guid, node.path);
    }
    const auto sorted = ZkSortedBySequence(children.children);
    const auto at = std::find(sorted.begin(), sorted.end(), mine);
    if (at == sorted.end()) {
      // Only the server removes it: our session expired.
      co_return Failed(Outcome::kFail, guid, "our lock node is gone (session expired)");
    }
    const int64_t blocker = ZkBlockerOf(sorted, static_cast<size_t>(at - sorted.begin()));
    if (blocker < 0) {
      AcquireResult ok;
      ok.outcome = Outcome::kOk;
      ok.token = guid;
      ok.fence = node.czxid;
      ok.validity_ms = ValidityMs(lease, proof_sent);
      ok.session_lease = true;
      held_[guid] = {node.path, session_.generation(), key};
      co_return ok;
    }
    const std::string predecessor = parent + "/" + sorted[static_cast<size_t>(blocker)];
    const int64_t seen = session_.event_count();
    ZkReply watched = co_await session_.Exists(predecessor, true, deadline);
    if (watched.rc == ZNONODE) continue;
    if (watched.rc != ZOK) {
      const AcquireResult r = Failed(Outcome::kUnknown, guid,
                                     "watching " + predecessor + ": " + ZkErrorText(watched.rc));
      co_return co_await GiveUp(r, parent, guid, node.path);
    }
    co_await session_.WaitForEvent(deadline, seen);
    if (Clock::now() >= deadline) {
      AcquireResult r = Failed(Outcome::kUnknown, guid, "the lock stayed taken");
      r.busy = true;  // told a fail when GiveUp removes our node
      co_return co_await GiveUp(r, parent, guid, node.path);
    }
  }
}

asio::awaitable<AcquireResult> ZkLockClient::AcquireNaive(const std::string& key,
                                                          milliseconds lease,
                                                          Clock::time_point deadline) {
  const std::string node = std::string(kNaiveRoot) + "/" + key;
  const std::string token = tokens_.Next();
  if (int rc = co_await EnsureParents(node, deadline); rc != ZOK) {
    co_return Failed(Outcome::kFail, token, std::string("creating ") + kNaiveRoot + ": " +
                                                ZkErrorText(rc));
  }
  bool maybe_made = false;  // a create of ours has an unknown fate
  while (true) {
    if (Clock::now() >= deadline) {
      const Outcome o = maybe_made ? Outcome::kUnknown : Outcome::kFail;
      AcquireResult r = Failed(o, token, "the lock stayed taken");
      r.busy = true;
      const std::string leftover = maybe_made ? node : kNone;
      co_return co_await GiveUp(r, node, token, leftover);
    }
    const auto proof_sent = Clock::now();
    ZkReply made = co_await session_.Create(node, token, ZOO_EPHEMERAL, deadline);
    std::optional<ZkStat> ours;
    if (made.rc == ZOK) {
      ours = made.stat.value_or(ZkStat{});
    } else if (made.rc == ZNODEEXISTS) {
      const int64_t seen = session_.event_count();
      ZkReply e = co_await session_.Exists(node, true, deadline);
      if (e.rc == ZNONODE) continue;
      if (e.rc != ZOK || !e.stat) {
        const Outcome o = maybe_made ? Outcome::kUnknown : Outcome::kFail;
        const AcquireResult r = Failed(o, token, "watching: " + ZkErrorText(e.rc));
        const std::string leftover = maybe_made ? node : kNone;
        co_return co_await GiveUp(r, node, token, leftover);
      }
      if (e.stat->ephemeral_owner == session_.session_id()) {
        ours = e.stat;  // our earlier create, whose reply was lost
      } else {
        co_await session_.WaitForEvent(deadline, seen);
        continue;
      }
    } else if (ZkDefinitelyNotApplied(made.rc)) {
      co_return Failed(maybe_made ? Outcome::kUnknown : Outcome::kFail, token,
                       "create: " + ZkErrorText(made.rc));
    } else {
      maybe_made = true;
      if (made.rc != ZkSession::kTimedOut) (void)co_await session_.WaitConnected(deadline);
      continue;
    }
    AcquireResult ok;
    ok.outcome = Outcome::kOk;
    ok.token = token;
    ok.fence = ours->czxid;
    ok.validity_ms = ValidityMs(lease, proof_sent);
    ok.session_lease = true;
    held_[token] = {node, session_.generation(), key};
    co_return ok;
  }
}

asio::awaitable<ReleaseResult> ZkLockClient::Release(const std::string& key,
                                                     const std::string& token) {
  (void)key;
  ReleaseResult result;
  auto it = held_.find(token);
  if (closed_ || it == held_.end()) {
    result.outcome = Outcome::kFail;
    result.error = closed_ ? "the client is closed" : "this client does not hold " + token;
    co_return result;
  }
  const Held held = it->second;
  held_.erase(it);
  if (held.generation != session_.generation() || session_.expired()) {
    result.outcome = Outcome::kFail;
    result.error = "lock lost: the session expired";
    co_return result;
  }
  const std::string lost = LockLostReason();
  const auto deadline = Clock::now() + options_.timeout;
  ZkReply gone = co_await session_.Delete(held.node, deadline);
  if (gone.rc == ZOK) {
    result.outcome = Outcome::kOk;
  } else if (gone.rc == ZNONODE || gone.rc == ZSESSIONEXPIRED || session_.expired()) {
    result.outcome = Outcome::kFail;
    result.error = "lock lost: our node is gone (" + ZkErrorText(gone.rc) + ")";
  } else if (ZkDefinitelyNotApplied(gone.rc)) {
    result.outcome = Outcome::kFail;
    result.error = ZkErrorText(gone.rc);
  } else {
    result.outcome = Outcome::kUnknown;
    result.error = ZkErrorText(gone.rc) + (lost.empty() ? "" : "; " + lost);
    Abandon(held, token);
  }
  co_return result;
}

void ZkLockClient::Abandon(const Held& held, const std::string& token) {
  abandoned_generation_ = held.generation;
  if (recipe_ != ZkRecipe::kNaive) {
    abandoned_guids_[held.node.substr(0, held.node.rfind('/'))].insert(token);
  } else {
    abandoned_nodes_.insert(held.node);
  }
}

}  // namespace locksmith
