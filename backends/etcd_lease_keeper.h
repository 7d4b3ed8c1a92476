// EtcdLeaseKeeper: keeps one etcd lease alive for the lock client that
// granted it (POST /v3/lease/keepalive every TTL/3, counted from the last
// answered keep-alive, as etcd's own client schedules it), from the grant,
// so the lease outlives a long wait in the lock's queue, until the lock is
// released or the lease is lost. The lease is valid until the time the last
// answered keep-alive (or the grant) was sent plus the TTL the server gave:
// a reply cannot vouch for more.
//
// Once the lock is held (Hold), each keep-alive is a LockEvent (a renewal:
// ok with the validity left, fail, or unknown), and the lease is reported
// lost (LockEvent::kLost, once) when the server answers that it no longer
// knows it, or when no keep-alive was answered before the lease ran out by
// the client's own reckoning (the lock is then in doubt: the servers may
// already have expired it and granted it to another).
//
// While the client is paused (EtcdKeeperShared::paused) no keep-alive is
// sent and a reply that arrives meanwhile is handled after the pause, as in
// a stopped process: a pause longer than what is left of the lease lets
// etcd expire it, and the first keep-alive after the pause reports the loss.
//
// Thread-safety: none; everything runs on the client's executor. The loop
// keeps the shared state and the keeper alive, so either may be dropped by
// the client while a keep-alive is in flight.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

#include "backends/etcd_gateway.h"
#include "backends/lock_client.h"

namespace locksmith {

// What one client's keepers share: its gateway, its pause, its sink and
// its counters.
struct EtcdKeeperShared {
  EtcdKeeperShared(boost::asio::any_io_executor ex, std::vector<EtcdEndpoint> members,
                   std::string source_address, size_t first, std::chrono::milliseconds t)
      : executor(ex),
        gateway(ex, std::move(members), std::move(source_address), first),
        timeout(t),
        pause_gate(ex) {}
  boost::asio::any_io_executor executor;
  EtcdGateway gateway;
  std::chrono::milliseconds timeout;  // of every call
  bool paused = false;
  bool closed = false;
  boost::asio::steady_timer pause_gate;  // waited on while paused
  LockEventSink sink;
  int64_t keepalives = 0, keepalives_failed = 0, locks_lost = 0;

  void Emit(LockEvent event) {
    if (sink && !closed) sink(std::move(event));
  }
};

// What one keep-alive's call means for the lease (pure; exposed for tests).
struct KeepAliveVerdict {
  enum class Kind { kRenewed, kGone, kFailed };
  Kind kind = Kind::kFailed;
  int64_t ttl_s = 0;              // kRenewed
  Outcome outcome = Outcome::kUnknown;  // kFailed: kFail when certainly not renewed
  std::string error;
};
KeepAliveVerdict JudgeKeepAlive(const EtcdCall& call);

// The TTL, in whole seconds, that a lock held for `lease` asks for: the
// lease rounded up, at least 1 (etcd's TTLs are seconds; the server may
// raise it to its minimum, which the grant's reply says).
int64_t EtcdTtlSeconds(std::chrono::milliseconds lease);

class EtcdLeaseKeeper : public std::enable_shared_from_this<EtcdLeaseKeeper> {
 public:
  using Clock = std::chrono::steady_clock;

  // Starts keeping `lease` alive; `granted_sent` is when its grant was sent.
  static std::shared_ptr<EtcdLeaseKeeper> Start(std::shared_ptr<EtcdKeeperShared> shared,
                                                EtcdLease lease,
                                                Clock::time_point granted_sent);
  EtcdLeaseKeeper(EtcdLease lease, Clock::time_point granted_sent,
                  boost::asio::any_io_executor executor);

  // The lock on `key` is held with `token`: from now on report to the sink.
  void Hold(std::string key, std::string token);
  // Stops the keep-alives (a call in flight is not reported).
  void Stop();

  int64_t id() const { return lease_.id; }
  int64_t ttl_s() const { return lease_.ttl_s; }
  Clock::time_point valid_until() const { return valid_until_; }
  // The lease is known gone or in doubt (then Hold reports nothing more).
  bool lost() const { return !lost_reason_.empty(); }
  const std::string& lost_reason() const { return lost_reason_; }

 private:
  static boost::asio::awaitable<void> Run(std::shared_ptr<EtcdKeeperShared> shared,
                                          std::shared_ptr<EtcdLeaseKeeper> self);
  static boost::asio::awaitable<void> WhilePaused(EtcdKeeperShared& shared,
                                                  const EtcdLeaseKeeper& self);
  // Applies one keep-alive's verdict; false when the loop must end.
  bool Apply(EtcdKeeperShared& shared, const KeepAliveVerdict& verdict, Clock::time_point sent);
  void Lose(EtcdKeeperShared& shared, std::string reason);

  EtcdLease lease_;
  Clock::time_point valid_until_;
  Clock::time_point last_answer_;
  boost::asio::steady_timer timer_;
  bool stopped_ = false;
  bool failing_ = false;  // the last keep-alive got no renewal
  std::string key_, token_;  // set by Hold
  std::string lost_reason_;
};

}  // namespace locksmith
