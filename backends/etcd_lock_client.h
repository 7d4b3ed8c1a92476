// EtcdLockClient: the `etcd` lock client, etcd's v3 lock API (the server
// side of concurrency.Mutex) through the JSON gateway (EtcdGateway):
//
//   Acquire   POST /v3/lease/grant {TTL: the run's lease in whole seconds,
//             at least 1; the server may raise it to its minimum}, keep the
//             lease alive from then on (EtcdLeaseKeeper), POST /v3/lock/lock
//             {name: the key, lease}: the server puts <key>/<lease id> with
//             the lease and waits until every key under <key> created
//             before it is gone, so the lock is granted in queue order.
//             Then POST /v3/kv/range of that key: its create revision is
//             the acquire's fence (it only grows from one holder to the
//             next, as each waits for every earlier key to go).
//   Release   POST /v3/lock/unlock {key} (a delete of our own key), then
//             POST /v3/lease/revoke.
//
// The lock lasts as long as its lease: validity_ms is what is left of the
// lease by the client's reckoning (from the time the last answered
// keep-alive was sent, plus the TTL it gave). The lock waits in the queue
// up to the acquire wait (SetAcquireWait) or the client timeout, whichever
// is longer; every other call has the client timeout.
// Outcome table of Acquire:
//   granted and its fence read                                     ok
//   the client is closed, or no lease could be had (a lease alone
//     locks nothing)                                               fail
//   the lock not granted before the wait ended, the lease revoked
//     (our queued key with it)                                     fail, busy
//     (busy as far as the client can tell: a lock call that hangs
//     at a member cut off from the majority ends the same way)
//   the server refused the lock for certain (its lease expired
//     while queued: keep-alives unanswered)                        fail
//   granted or maybe granted (no reply, an error that may have been
//     applied, the key gone or unreadable) and the lease then
//     revoked, so nothing is left of it                            fail
//   ... and the revoke unanswered                                  unknown
// Outcome table of Release:
//   the lease revoked (it was alive until then, so the lock was ours)  ok
//   etcd no longer knows the lease (it expired before the release),
//     or the client had reported the lock lost                     fail, "lock lost"
//   the unlock answered but the revoke not                         ok
//   neither answered                                               unknown
//   a token this client does not hold                              fail
// While a lock is held its keep-alives are renewals to the event sink and a
// lease lost is a lock-lost event (EtcdLeaseKeeper).
//
// The gateway starts at member `first` of the run's members and moves to
// the next after a failure, so a partition or a dead member costs a client
// one timeout per call, not the run.
//
// Thread-safety: none; one worker on the client's executor issues calls,
// and the keep-alives run on the same executor.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>

#include "backends/etcd_gateway.h"
#include "backends/etcd_lease_keeper.h"
#include "backends/lock_client.h"
#include "backends/redis_lock_token.h"

namespace locksmith {

struct EtcdLockClientOptions {
  std::vector<EtcdEndpoint> members;  // every member's client address and port
  std::string source_address;         // bind the client's connections to it when non-empty
  size_t first_member = 0;            // the member the client talks to first
  std::chrono::milliseconds timeout{500};
};

class EtcdLockClient final : public LockClient {
 public:
  EtcdLockClient(boost::asio::any_io_executor executor, EtcdLockClientOptions options,
                 uint64_t seed);
  ~EtcdLockClient() override;

  boost::asio::awaitable<Status> Connect() override;
  boost::asio::awaitable<AcquireResult> Acquire(const std::string& key,
                                                std::chrono::milliseconds lease) override;
  boost::asio::awaitable<ReleaseResult> Release(const std::string& key,
                                                const std::string& token) override;
  // Stops every keep-alive and closes the connections; the leases expire on
  // their own (a crash is the same: etcd keeps a dead client's lock until
  // its lease's TTL ends).
  void Close() override;
  void SetPaused(bool paused) override;
  void SetEventSink(LockEventSink sink) override { shared_->sink = std::move(sink); }
  void SetAcquireWait(std::chrono::milliseconds wait) override { acquire_wait_ = wait; }
  // keepalives, keepalives_failed, locks_lost, connections.
  std::map<std::string, int64_t> Counters() const override;

 private:
  using Clock = EtcdLeaseKeeper::Clock;
  // Once the lock call granted `lock_key`: its fence, or how it ended.
  boost::asio::awaitable<AcquireResult> Fence(const std::string& key, const std::string& token,
                                              const std::string& lock_key,
                                              std::shared_ptr<EtcdLeaseKeeper> keeper);
  // Ends an acquire whose lock is not (or may not be) held: revokes the
  // lease, and says fail when the server answered, `why` kept otherwise.
  boost::asio::awaitable<AcquireResult> GiveUp(AcquireResult given_up,
                                               std::shared_ptr<EtcdLeaseKeeper> keeper);
  // Revokes the lease, trying a second member when the first did not
  // answer; `retried` (may be null): the first try may have been applied.
  boost::asio::awaitable<EtcdCall> Revoke(int64_t lease_id, bool* retried);
  // POSTs with the client timeout.
  boost::asio::awaitable<EtcdCall> Call(const char* path, std::string body);

  struct Held {
    std::string key;
    std::string lock_key;
    std::shared_ptr<EtcdLeaseKeeper> keeper;
  };

  EtcdLockClientOptions options_;
  std::shared_ptr<EtcdKeeperShared> shared_;
  std::chrono::milliseconds acquire_wait_{0};
  LockTokenGenerator tokens_;
  std::map<std::string, Held> held_;  // by token
};

}  // namespace locksmith
