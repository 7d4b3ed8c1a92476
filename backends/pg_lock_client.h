// PgLockClient: the postgres backend's two lock clients over one PgConnection
// (libpq's asynchronous API on the run's executor), the SQL of
// backends/pg_lock_sql.h, its socket bound to the slot's source address
// (libpq cannot bind one: ScopedSourceAddress binds it as libpq connects),
// so a partition cuts this client off alone.
//
//   pg-advisory    pg_try_advisory_lock on the key's number, tried again with
//                  a growing backoff (5 ms doubling to 100 ms) until it is
//                  granted or the acquire wait (SetAcquireWait, at least the
//                  client timeout) is over; pg_advisory_unlock to release.
//                  The lock belongs to the session: it is gone when the
//                  session ends (a server kill or restart, the server
//                  dropping a connection a partition cut), and the client
//                  learns that only when it next talks to the server. So an
//                  ok acquire says session_lease, and its validity_ms is
//                  only the lease it was asked for less the round trip: the
//                  server sets no expiry, and nothing tells the holder its
//                  session ended while it works.
//   pg-lock-table  a row (key, owner = token, expires_at = now() + lease) taken
//                  in one INSERT ... ON CONFLICT DO UPDATE ... WHERE
//                  expires_at < now(): a try-lock (the workload retries
//                  within its wait); an expired row is taken over. validity_ms
//                  is the lease less the round trip (the server's now() is
//                  no earlier than the request's send). The row outlives the
//                  session and a server restart.
//
// With fencing, the acquiring statement takes nextval('locksmith_fence') when
// it grants: AcquireResult::fence.
//
// Outcome table (each call has the client timeout as its deadline; before
// it sends, a call reads what the server sent on the idle session, and opens
// a new one when the server had closed it, so nothing is sent into a session
// already known dead):
//   granted                                                            ok
//   no session could be opened (nothing sent)                          fail
//   the server answered "not granted" (for the whole wait: advisory)   fail, busy
//   the server refused the statement (an error: rolled back)           fail
//   sent, then no answer by the deadline or the session lost           unknown
//   release: the row / advisory lock deleted                           ok
//   release: not held by this token (taken over, expired and gone,
//     or, advisory, the session that took it has ended: dropped after
//     an unknown, or found closed by the server before sending)        fail "lock lost"
//   any call after Close()                                             fail
// An unknown ends the session, so an advisory lock it may have taken dies
// with it (once the server notices the connection closed).
//
// Thread-safety: none; one worker's calls, one at a time, on the executor.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include <boost/asio/any_io_executor.hpp>

#include "backends/lock_client.h"
#include "backends/pg_connection.h"
#include "backends/redis_lock_token.h"

namespace locksmith {

enum class PgLockKind { kAdvisory, kLockTable };

struct PgLockClientOptions {
  PgEndpoint server;
  std::string source_address;  // the client's own address; empty: the kernel's choice
  std::chrono::milliseconds timeout{500};
  bool fencing = false;
};

class PgLockClient : public LockClient {
 public:
  PgLockClient(boost::asio::any_io_executor executor, PgLockClientOptions options,
               PgLockKind kind, uint64_t seed);
  ~PgLockClient() override;

  boost::asio::awaitable<Status> Connect() override;
  boost::asio::awaitable<AcquireResult> Acquire(const std::string& key,
                                                std::chrono::milliseconds lease) override;
  boost::asio::awaitable<ReleaseResult> Release(const std::string& key,
                                                const std::string& token) override;
  void Close() override;
  void SetAcquireWait(std::chrono::milliseconds wait) override { acquire_wait_ = wait; }
  std::map<std::string, int64_t> Counters() const override;

 private:
  using Clock = PgConnection::Clock;
  // One try of the acquire statement (the session open first).
  boost::asio::awaitable<AcquireResult> TryAcquire(const std::string& key,
                                                   std::chrono::milliseconds lease,
                                                   const std::string& token);
  boost::asio::awaitable<AcquireResult> AcquireAdvisory(const std::string& key,
                                                        std::chrono::milliseconds lease);
  boost::asio::awaitable<ReleaseResult> ReleaseAdvisory(const std::string& key,
                                                        const std::string& token);
  boost::asio::awaitable<ReleaseResult> ReleaseRow(const std::string& key,
                                                   const std::string& token);
  // Opens the session unless open; false (and why) when it cannot by `deadline`.
  boost::asio::awaitable<Status> EnsureSession(Clock::time_point deadline);

  boost::asio::any_io_executor executor_;
  const PgLockClientOptions options_;
  const PgLockKind kind_;
  std::unique_ptr<PgConnection> connection_;  // made by Connect
  LockTokenGenerator tokens_;
  std::chrono::milliseconds acquire_wait_{0};
  bool closed_ = false;
  // Advisory locks held: key -> (token, the session that took it).
  struct Held {
    std::string token;
    uint64_t session = 0;
  };
  std::map<std::string, Held> held_;
  int64_t retries_ = 0;
};

}  // namespace locksmith
