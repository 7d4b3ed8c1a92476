#include "backends/etcd_lock_client.h"

#include <algorithm>

namespace locksmith {
namespace asio = boost::asio;
using std::chrono::milliseconds;

namespace {

AcquireResult Ended(Outcome outcome, std::string token, std::string error) {
  AcquireResult r;
  r.outcome = outcome;
  r.token = std::move(token);
  r.error = std::move(error);
  return r;
}

}  // namespace

EtcdLockClient::EtcdLockClient(asio::any_io_executor executor, EtcdLockClientOptions options,
                               uint64_t seed)
    : options_(std::move(options)),
      shared_(std::make_shared<EtcdKeeperShared>(executor, options_.members,
                                                 options_.source_address, options_.first_member,
                                                 options_.timeout)),
      tokens_(seed) {}

EtcdLockClient::~EtcdLockClient() { Close(); }

asio::awaitable<Status> EtcdLockClient::Connect() {
  // Connections open with the first call: a member that is down now (a
  // fault) must not keep the client from starting.
  co_return OkStatus();
}

asio::awaitable<EtcdCall> EtcdLockClient::Call(const char* path, std::string body) {
  std::shared_ptr<EtcdKeeperShared> shared = shared_;
  co_return co_await shared->gateway.Call(path, std::move(body), Clock::now() + options_.timeout);
}

asio::awaitable<EtcdCall> EtcdLockClient::Revoke(int64_t lease_id, bool* retried) {
  // A revoke may be repeated: a second try goes to the next member, which
  // may be on the majority's side of a partition the first was not.
  EtcdCall revoke = co_await Call("/v3/lease/revoke", EtcdLeaseIdBody(lease_id));
  if (retried != nullptr) *retried = false;
  if (revoke.fate == EtcdCall::Fate::kAnswered || shared_->closed) co_return revoke;
  if (retried != nullptr) *retried = revoke.fate == EtcdCall::Fate::kNoAnswer;
  co_return co_await Call("/v3/lease/revoke", EtcdLeaseIdBody(lease_id));
}

asio::awaitable<AcquireResult> EtcdLockClient::Acquire(const std::string& key, milliseconds lease) {
  std::shared_ptr<EtcdKeeperShared> shared = shared_;
  const std::string token = tokens_.Next();
  if (shared->closed) co_return Ended(Outcome::kFail, token, "the client is closed");
  const Clock::time_point grant_sent = Clock::now();
  EtcdCall grant = co_await Call("/v3/lease/grant", EtcdLeaseGrantBody(EtcdTtlSeconds(lease)));
  if (!grant.answered_ok()) {
    co_return Ended(Outcome::kFail, token, "no lease, so no lock: " + grant.Why());
  }
  auto lease_granted = ParseLeaseGrant(grant.reply.body);
  if (!lease_granted) co_return Ended(Outcome::kFail, token, lease_granted.error());
  auto keeper = EtcdLeaseKeeper::Start(shared, *lease_granted, grant_sent);
  const milliseconds wait = std::max(acquire_wait_, options_.timeout);
  EtcdCall lock = co_await shared->gateway.Call(
      "/v3/lock/lock", EtcdLockBody(key, keeper->id()), Clock::now() + wait);
  if (lock.fate == EtcdCall::Fate::kNotSent) {
    keeper->Stop();
    co_return Ended(Outcome::kFail, token, "lock: " + lock.Why());
  }
  if (lock.fate == EtcdCall::Fate::kNoAnswer) {
    AcquireResult waited = Ended(Outcome::kUnknown, token, "lock: " + lock.Why());
    waited.busy = true;
    co_return co_await GiveUp(std::move(waited), keeper);
  }
  if (lock.reply.error) {
    const bool certain = EtcdCertainlyNotApplied(*lock.reply.error);
    AcquireResult refused = Ended(certain ? Outcome::kFail : Outcome::kUnknown, token,
                                  "lock: " + lock.Why());
    co_return co_await GiveUp(std::move(refused), keeper);
  }
  auto lock_key = ParseLockKey(lock.reply.body);
  if (!lock_key) {
    co_return co_await GiveUp(Ended(Outcome::kUnknown, token, lock_key.error()), keeper);
  }
  co_return co_await Fence(key, token, *lock_key, keeper);
}

asio::awaitable<AcquireResult> EtcdLockClient::Fence(const std::string& key,
                                                     const std::string& token,
                                                     const std::string& lock_key,
                                                     std::shared_ptr<EtcdLeaseKeeper> keeper) {
  EtcdCall range = co_await Call("/v3/kv/range", EtcdRangeKeyBody(lock_key));
  auto revision = range.answered_ok() ? ParseCreateRevision(range.reply.body)
                                      : Result<int64_t>(Error{"range: " + range.Why()});
  std::string why;
  if (!revision) why = "granted, but its fence is unknown: " + revision.error();
  if (revision && *revision == 0) why = "granted, but its key was gone before its fence was read";
  if (why.empty() && keeper->lost()) why = "granted, but its lease is lost: " + keeper->lost_reason();
  if (why.empty() && shared_->closed) why = "granted, but the client closed";
  if (!why.empty()) {
    co_return co_await GiveUp(Ended(Outcome::kUnknown, token, why), keeper);
  }
  keeper->Hold(key, token);
  held_[token] = Held{key, lock_key, keeper};
  AcquireResult r = Ended(Outcome::kOk, token, "");
  r.fence = *revision;
  r.validity_ms =
      std::max<int64_t>(0, std::chrono::floor<milliseconds>(keeper->valid_until() - Clock::now())
                               .count());
  // The id as a string: it needs all 64 bits, more than a JSON reader in a
  // browser keeps.
  r.detail = {{"lease_id", std::to_string(keeper->id())}, {"ttl_s", keeper->ttl_s()}};
  co_return r;
}

asio::awaitable<AcquireResult> EtcdLockClient::GiveUp(AcquireResult given_up,
                                                      std::shared_ptr<EtcdLeaseKeeper> keeper) {
  keeper->Stop();
  // Revoking the lease deletes every key it holds: our place in the queue,
  // or the lock itself should it have been granted.
  EtcdCall revoke = co_await Revoke(keeper->id(), nullptr);
  const bool gone = revoke.answered_ok() ||
                    (revoke.reply.error && EtcdLeaseNotFound(*revoke.reply.error));
  if (given_up.outcome == Outcome::kUnknown && revoke.fate == EtcdCall::Fate::kAnswered && gone) {
    given_up.outcome = Outcome::kFail;
    given_up.error += "; the lease revoked";
  } else if (given_up.outcome == Outcome::kUnknown) {
    given_up.busy = false;
    given_up.error += "; the lease not revoked: " + revoke.Why();
  }
  if (given_up.outcome != Outcome::kFail) given_up.busy = false;
  co_return given_up;
}

asio::awaitable<ReleaseResult> EtcdLockClient::Release(const std::string& key,
                                                       const std::string& token) {
  std::shared_ptr<EtcdKeeperShared> shared = shared_;
  auto it = held_.find(token);
  if (it == held_.end() || it->second.key != key) {
    co_return ReleaseResult{Outcome::kFail, "not held: no lock of this client has this token"};
  }
  const Held held = it->second;
  held_.erase(it);
  held.keeper->Stop();
  EtcdCall unlock = co_await Call("/v3/lock/unlock", EtcdUnlockBody(held.lock_key));
  bool retried = false;  // after a revoke that may have been applied
  EtcdCall revoke = co_await Revoke(held.keeper->id(), &retried);
  if (held.keeper->lost()) {
    co_return ReleaseResult{Outcome::kFail, "lock lost: " + held.keeper->lost_reason()};
  }
  if (revoke.answered_ok()) co_return ReleaseResult{Outcome::kOk, ""};
  if (revoke.fate == EtcdCall::Fate::kAnswered && EtcdLeaseNotFound(*revoke.reply.error) &&
      !retried) {
    co_return ReleaseResult{Outcome::kFail, "lock lost: its lease expired before the release"};
  }
  if (unlock.answered_ok()) co_return ReleaseResult{Outcome::kOk, ""};
  co_return ReleaseResult{Outcome::kUnknown,
                          "unlock: " + unlock.Why() + "; revoke: " + revoke.Why()};
}

void EtcdLockClient::Close() {
  if (shared_->closed) return;
  shared_->closed = true;
  for (auto& [token, held] : held_) held.keeper->Stop();
  held_.clear();
  shared_->pause_gate.cancel();
  shared_->sink = nullptr;
  shared_->gateway.Close();
}

void EtcdLockClient::SetPaused(bool paused) {
  shared_->paused = paused;
  if (paused) {
    shared_->pause_gate.expires_at(Clock::time_point::max());
  } else {
    shared_->pause_gate.cancel();
  }
}

std::map<std::string, int64_t> EtcdLockClient::Counters() const {
  return {{"keepalives", shared_->keepalives},
          {"keepalives_failed", shared_->keepalives_failed},
          {"locks_lost", shared_->locks_lost},
          {"connections", shared_->gateway.connections_opened()}};
}

}  // namespace locksmith
