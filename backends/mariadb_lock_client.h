// MariadbLockClient: the two database lock recipes of the `mariadb` backend,
// each over one MariadbConnection per client (the lock lives in that
// connection's session on the server):
//
//   mysql-get-lock    SELECT GET_LOCK('<key>', 0): a named user lock, taken
//                     or refused at once (a try-lock: the workload retries
//                     a refusal with backoff within its acquire wait);
//                     released by SELECT RELEASE_LOCK('<key>'). The server
//                     drops it when the connection ends.
//   mysql-for-update  the lock row of the key (INSERT IGNORE INTO locks once)
//                     held by a transaction: START TRANSACTION; SELECT ...
//                     FROM locks WHERE name = '<key>' FOR UPDATE, which
//                     queues behind the holder for up to the acquire wait
//                     (FOR UPDATE WAIT n: the statement's
//                     innodb_lock_wait_timeout, whole seconds, at most the
//                     wait; NOWAIT under a second); COMMIT releases. A transaction
//                     whose connection ends is rolled back, so this lock too
//                     dies with its connection.
//
// Neither lock has a lease: it lasts as long as the server keeps the
// connection, so an ok acquire says session_lease and its validity_ms is
// the lease asked for (a nominal figure). The server drops the lock when it
// sees the connection end (its restart, an aborted TCP connection, a
// crashed client) while the holder, busy in its critical section, may not
// know: the next statement finds the connection gone.
//
// Fencing (--fencing on): an acquire that got the lock inserts a row into
// the AUTO_INCREMENT table `fences` (mysql-get-lock: autocommit;
// mysql-for-update: inside the holding transaction) and its id is the fence.
// InnoDB never hands out an AUTO_INCREMENT value twice, a rolled-back
// insert's included, and only a holder inserts, so fences grow in grant
// order.
//
// Outcome table (acquire):
//   GET_LOCK returned 1 / FOR UPDATE returned the row (and the fence row
//     was inserted)                                              ok
//   no connection before the deadline (nothing sent)             fail
//   GET_LOCK returned 0 / the lock wait timed out (error 1205)   fail, busy
//   any other error the server answered before the lock was held fail
//   the lock statement got no answer, or the connection was lost
//     under it, or anything failed after the grant (the lock then
//     dies with the closed connection)                           unknown
// Release:
//   RELEASE_LOCK returned 1 / COMMIT answered ok                 ok
//   the key is not held with this token by this client, RELEASE_LOCK
//     returned 0 or NULL, or the connection that held the lock is
//     gone (the lock died with it: nothing to release)           fail
//   an error the server answered                                 fail
//   no answer, connection lost under the statement               unknown
// Every call has a deadline: the client timeout (and for a queued
// FOR UPDATE the wait on top); a call past it closes the connection.
//
// Thread-safety: none; one client belongs to one worker, on its executor.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>

#include "backends/lock_client.h"
#include "backends/mariadb_connection.h"
#include "backends/redis_lock_token.h"

namespace locksmith {

enum class MariadbRecipe { kGetLock, kForUpdate };

// The clients' names ("mysql-get-lock", "mysql-for-update"), the default first.
std::vector<std::string> MariadbClientNames();
// The recipe called `name` (one of MariadbClientNames()); kGetLock otherwise.
MariadbRecipe MariadbRecipeNamed(const std::string& name);

// `s` as a quoted SQL string literal (backslash escapes, as the server reads
// them without NO_BACKSLASH_ESCAPES): pure.
std::string SqlQuoted(const std::string& s);
// The lock wait (innodb_lock_wait_timeout) of an acquire that may wait
// `wait`: whole seconds, never longer than the wait (0: give up at once).
int64_t LockWaitSeconds(std::chrono::milliseconds wait);

struct MariadbLockClientOptions {
  MariadbEndpoint endpoint;
  MariadbRecipe recipe = MariadbRecipe::kGetLock;
  std::chrono::milliseconds timeout{500};
  bool fencing = false;
};

class MariadbLockClient : public LockClient {
 public:
  MariadbLockClient(boost::asio::any_io_executor executor, MariadbLockClientOptions options,
                    uint64_t seed);

  boost::asio::awaitable<Status> Connect() override;
  boost::asio::awaitable<AcquireResult> Acquire(const std::string& key,
                                                std::chrono::milliseconds lease) override;
  boost::asio::awaitable<ReleaseResult> Release(const std::string& key,
                                                const std::string& token) override;
  void Close() override;
  void SetAcquireWait(std::chrono::milliseconds wait) override { wait_ = wait; }
  std::map<std::string, int64_t> Counters() const override;

 private:
  using Clock = MariadbConnection::Clock;

  // The recipe's lock statements, filling in `result` (which has the token).
  boost::asio::awaitable<void> GetLock(const std::string& key, std::chrono::milliseconds lease,
                                       AcquireResult& result);
  boost::asio::awaitable<void> SelectForUpdate(const std::string& key,
                                               std::chrono::milliseconds lease,
                                               AcquireResult& result);
  // After the grant: the fence row (when fencing) and the hold recorded.
  boost::asio::awaitable<void> Granted(const std::string& key, std::chrono::milliseconds lease,
                                       Clock::time_point deadline, AcquireResult& result);
  // Statements before the lock statement; a failure is certain: fail.
  boost::asio::awaitable<bool> Prepare(const std::string& sql, Clock::time_point deadline,
                                       AcquireResult& result);

  const MariadbLockClientOptions options_;
  MariadbConnection connection_;
  LockTokenGenerator tokens_;
  std::chrono::milliseconds wait_{0};
  // A lock this client holds: its token and the connection it lives in
  // (MariadbConnection::connects() at the grant).
  struct Hold {
    std::string token;
    int64_t connection = 0;
  };
  std::set<std::string> rows_made_;   // keys whose lock row exists
  std::map<std::string, Hold> held_;  // by key
  int64_t locks_lost_ = 0;            // releases that found the connection gone
};

}  // namespace locksmith
