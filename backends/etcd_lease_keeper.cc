#include "backends/etcd_lease_keeper.h"

#include <algorithm>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "backends/task_group.h"

namespace locksmith {
namespace asio = boost::asio;
using std::chrono::milliseconds;

KeepAliveVerdict JudgeKeepAlive(const EtcdCall& call) {
  KeepAliveVerdict v;
  if (call.fate != EtcdCall::Fate::kAnswered) {
    v.outcome = call.fate == EtcdCall::Fate::kNotSent ? Outcome::kFail : Outcome::kUnknown;
    v.error = call.error;
    return v;
  }
  if (call.reply.error) {
    if (EtcdLeaseNotFound(*call.reply.error)) {
      v.kind = KeepAliveVerdict::Kind::kGone;
      v.error = "keep-alive: etcd no longer knows the lease (expired or revoked)";
      return v;
    }
    v.outcome = EtcdCertainlyNotApplied(*call.reply.error) ? Outcome::kFail : Outcome::kUnknown;
    v.error = "keep-alive: " + call.reply.error->message;
    return v;
  }
  auto ttl = ParseKeepAliveTtl(call.reply.body);
  if (!ttl) {
    v.error = ttl.error();
    return v;
  }
  if (*ttl == 0) {
    v.kind = KeepAliveVerdict::Kind::kGone;
    v.error = "keep-alive: the lease has expired (etcd answered without a TTL)";
    return v;
  }
  v.kind = KeepAliveVerdict::Kind::kRenewed;
  v.outcome = Outcome::kOk;
  v.ttl_s = *ttl;
  return v;
}

int64_t EtcdTtlSeconds(milliseconds lease) {
  return std::max<int64_t>(1, (lease.count() + 999) / 1000);
}

EtcdLeaseKeeper::EtcdLeaseKeeper(EtcdLease lease, Clock::time_point granted_sent,
                                 asio::any_io_executor executor)
    : lease_(lease),
      valid_until_(granted_sent + std::chrono::seconds(lease.ttl_s)),
      last_answer_(Clock::now()),
      timer_(executor) {}

std::shared_ptr<EtcdLeaseKeeper> EtcdLeaseKeeper::Start(std::shared_ptr<EtcdKeeperShared> shared,
                                                        EtcdLease lease,
                                                        Clock::time_point granted_sent) {
  auto self = std::make_shared<EtcdLeaseKeeper>(lease, granted_sent, shared->executor);
  // What a keep-alive throws (the event sink's recording, say) fails the run.
  BackgroundTasks(shared->executor)
      .Spawn("keep-alive of etcd lease " + std::to_string(lease.id), Run(shared, self));
  return self;
}

void EtcdLeaseKeeper::Hold(std::string key, std::string token) {
  key_ = std::move(key);
  token_ = std::move(token);
}

void EtcdLeaseKeeper::Stop() {
  stopped_ = true;
  timer_.cancel();
}

asio::awaitable<void> EtcdLeaseKeeper::WhilePaused(EtcdKeeperShared& shared,
                                                   const EtcdLeaseKeeper& self) {
  while (shared.paused && !self.stopped_ && !shared.closed) {
    (void)co_await shared.pause_gate.async_wait(asio::as_tuple(asio::use_awaitable));
  }
}

asio::awaitable<void> EtcdLeaseKeeper::Run(std::shared_ptr<EtcdKeeperShared> shared,
                                           std::shared_ptr<EtcdLeaseKeeper> self) {
  for (;;) {
    const milliseconds period = std::max(milliseconds(20), milliseconds(self->ttl_s() * 1000) / 3);
    // After a keep-alive that renewed nothing, try again sooner: the lease
    // is running out.
    self->timer_.expires_after(self->failing_ ? period / 4 : period);
    (void)co_await self->timer_.async_wait(asio::as_tuple(asio::use_awaitable));
    co_await WhilePaused(*shared, *self);
    if (self->stopped_ || shared->closed) co_return;
    const Clock::time_point sent = Clock::now();
    EtcdCall call = co_await shared->gateway.Call("/v3/lease/keepalive", EtcdLeaseIdBody(self->id()),
                                                  sent + shared->timeout);
    co_await WhilePaused(*shared, *self);  // a reply read in a pause counts after it
    if (self->stopped_ || shared->closed) co_return;
    if (!self->Apply(*shared, JudgeKeepAlive(call), sent)) co_return;
  }
}

bool EtcdLeaseKeeper::Apply(EtcdKeeperShared& shared, const KeepAliveVerdict& verdict,
                            Clock::time_point sent) {
  const Clock::time_point now = Clock::now();
  const bool held = !token_.empty();
  if (verdict.kind == KeepAliveVerdict::Kind::kRenewed) {
    ++shared.keepalives;
    failing_ = false;
    lease_.ttl_s = verdict.ttl_s;
    valid_until_ = sent + std::chrono::seconds(verdict.ttl_s);
    last_answer_ = now;
    if (held) {
      const auto left = std::chrono::floor<milliseconds>(valid_until_ - now).count();
      shared.Emit({LockEvent::Kind::kRenewed, key_, token_, Outcome::kOk, left, ""});
    }
    return true;
  }
  if (verdict.kind == KeepAliveVerdict::Kind::kGone) {
    ++shared.keepalives_failed;
    if (held) shared.Emit({LockEvent::Kind::kRenewed, key_, token_, Outcome::kFail, 0, verdict.error});
    Lose(shared, verdict.error);
    return false;
  }
  ++shared.keepalives_failed;
  failing_ = true;
  if (held) shared.Emit({LockEvent::Kind::kRenewed, key_, token_, verdict.outcome, 0, verdict.error});
  if (now < valid_until_) return true;
  Lose(shared, "keep-alive: none answered before the lease's TTL ran out (" + verdict.error + ")");
  return false;
}

void EtcdLeaseKeeper::Lose(EtcdKeeperShared& shared, std::string reason) {
  lost_reason_ = std::move(reason);
  stopped_ = true;
  if (token_.empty()) return;
  ++shared.locks_lost;
  LockEvent lost{LockEvent::Kind::kLost, key_, token_, Outcome::kOk, 0, lost_reason_};
  lost.cut_off_ms =
      std::chrono::duration_cast<milliseconds>(Clock::now() - last_answer_).count();
  shared.Emit(std::move(lost));
}

}  // namespace locksmith
