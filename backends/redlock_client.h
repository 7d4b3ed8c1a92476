// RedlockClient: the `redlock` lock client -- the Redlock algorithm of the
// Redis distributed-lock page over N independent masters, one pipelined
// RedisConnection per master.
//
//   Acquire: one random token (as RedisLockClient's: 128 bits from a PRNG
//            seeded by `seed`), start time taken; SET key token NX PX lease
//            sent to every master at once (a parallel group of coroutines on
//            the client's executor; `sequential`: one after another), each
//            bounded by the per-master timeout (node_timeout, far below the
//            lease). elapsed = reply of the last master - start, on
//            steady_clock (`wall_clock`: system_clock).
//            validity = lease - ceil(elapsed) - drift, drift = ceil(1% of
//            lease) + 2 ms (`no_drift`: 0). When a quorum granted, the
//            client's own kAcquireInFlight point (SetFaultPointHook) runs
//            between the replies and the clock reading: a stall there is a
//            client pause while the replies are in flight, which elapsed
//            counts.
//            Held iff granted >= quorum (N/2+1) and validity > 0; otherwise
//            the compare-and-delete release script runs on every master (in
//            parallel, within the client timeout) before the call returns.
//   Release: the compare-and-delete script on every master, in parallel,
//            within the client timeout (EVALSHA, EVAL on NOSCRIPT).
//
// Per master, a SET reply is granted (OK), refused (nil, or what
// RedisLockClient's table calls fail: nothing was sent, a definite error
// reply) or in doubt (what that table calls unknown: timeout after the
// write, connection lost, other error replies). An in-doubt SET may still
// land later, even after an unlock sent on a new connection (a timed-out
// connection is closed; a paused master can run the old socket's SET after
// the new socket's script), so an in-doubt master always "may hold".
//
// Acquire outcome (fail = it certainly holds on no quorum when it returns):
//   granted >= quorum, validity > 0                        ok
//   otherwise, after the unlock on every master, count the
//   masters that may hold: every in-doubt one, and every
//   granted one whose unlock did not run for certain (an
//   integer reply 0 or 1 proves the key is not ours there)
//     may hold < quorum                                     fail
//     may hold >= quorum                                    unknown
//   lease < 1 ms, or any call after Close()                 fail (nothing sent)
// So a quorum granted too slowly (validity <= 0) and unlocked everywhere is
// fail, and so is a minority; the same with a master timing out is unknown
// as soon as the timed-out masters could complete a quorum.
//
// Release outcome, per master: deleted (1), not ours (0), not run (nothing
// sent / definite error) or in doubt:
//   deleted >= quorum                                       ok
//   deleted == 0 and no master in doubt                     fail
//   otherwise                                               unknown
// (A release that deleted the key on fewer masters than a quorum did not
// release a lock this client held on a quorum; unknown is never wrong.)
//
// The acquire's detail names the masters: {"granted": [...], "in_doubt":
// [...], "elapsed_ms": E} (the workload records it in the op's value).
//
// The clock switch: the elapsed time is what a client with `wall_clock`
// reads from its wall clock: the controller's system_clock plus the steps
// its in-flight stalls returned (the client-pause nemesis's
// "clock_delta_ms": the client's machine's clock stepped while the process
// was stopped). The clock nemesis moves only the servers' clocks (its shim
// is preloaded into redis-server), never the controller's. A backward step
// during an acquire makes elapsed look shorter (validity too long: a double
// holder), a forward one longer; the monotonic client ignores the steps.
//
// Shared connections (RedlockMaster::shared_connection; the harness never
// shares: each client has its own connections and source address so a
// partition can cut it off alone): many clients' commands pipeline on one
// socket per master, so a server reads and answers them in batches. A
// command that times out closes the shared connection and every client's
// command pending on it ends in doubt. Close() leaves shared connections
// open: later calls fail, calls already pending end when their owner closes
// the connection or at their deadline.
//
// Connect opens every master; it fails only when fewer than a quorum
// answer (a client may start while a minority is down). Calls after a lost
// connection reconnect lazily, per master.
//
// Thread-safety: none; one worker on the client's executor issues calls.
// Destroy only when no call is pending.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "backends/lock_client.h"
#include "backends/redis_connection.h"
#include "backends/redis_lock_token.h"
#include "backends/redis_script.h"
#include "base/result.h"

namespace locksmith {

struct RedlockMaster {
  std::string name;  // the node's name ("n1"), as the history records it
  RedisEndpoint endpoint;
  // Optional: a connection to this master shared with other clients on the
  // same executor (a library's one pipelined connection per server, as
  // ioredis keeps; endpoint is then unused). Null: the client's own. See
  // "Shared connections" above.
  std::shared_ptr<RedisConnection> shared_connection;
};

struct RedlockClientOptions {
  std::vector<RedlockMaster> masters;
  std::chrono::milliseconds node_timeout{50};  // per master SET, send to reply
  std::chrono::milliseconds timeout{500};      // unlock / release on all masters
  std::chrono::milliseconds connect_timeout{500};
  bool no_drift = false;    // validity = lease - elapsed
  bool sequential = false;  // SETs one master after another
  bool wall_clock = false;  // elapsed on system_clock
};

// What one master said to the acquire's SET.
enum class RedlockSetReply { kGranted, kRefused, kInDoubt };
// What one master said to the compare-and-delete script.
enum class RedlockUnlockReply { kDeleted, kNotOurs, kNotRun, kInDoubt };

// The pure rules of the table above (exposed for tests).
int RedlockQuorum(int masters);
int64_t RedlockDriftMs(int64_t lease_ms);
int64_t RedlockValidityMs(int64_t lease_ms, int64_t elapsed_ms, bool drift);
RedlockSetReply ClassifyRedlockSet(const RedisResponse& response, std::string* why);
RedlockUnlockReply ClassifyRedlockUnlock(const RedisResponse& response, std::string* why);
// Whether the acquire holds without an unlock (quorum and validity > 0).
bool RedlockHolds(const std::vector<RedlockSetReply>& set, int64_t validity_ms);
// The outcome of an acquire that did not hold, after its unlock on every
// master (`unlock` in the masters' order).
Outcome RedlockFailedAcquireOutcome(const std::vector<RedlockSetReply>& set,
                                    const std::vector<RedlockUnlockReply>& unlock);
Outcome RedlockReleaseOutcome(const std::vector<RedlockUnlockReply>& unlock);

class RedlockClient final : public LockClient {
 public:
  RedlockClient(boost::asio::any_io_executor executor, RedlockClientOptions options,
                uint64_t seed);
  ~RedlockClient() override;

  boost::asio::awaitable<Status> Connect() override;
  boost::asio::awaitable<AcquireResult> Acquire(const std::string& key,
                                                std::chrono::milliseconds lease) override;
  boost::asio::awaitable<ReleaseResult> Release(const std::string& key,
                                                const std::string& token) override;
  void Close() override;
  // kAcquireInFlight: between the replies and the clock reading.
  void SetFaultPointHook(ClientFaultPointHook hook) override { fault_points_ = std::move(hook); }
  ClientFaultPoints OwnFaultPoints() const override {
    return {ClientFaultPoint::kAcquireInFlight};
  }

 private:
  using Deadline = RedisConnection::Clock::time_point;
  boost::asio::awaitable<RedisResponse> SetOn(size_t master, std::string key, std::string token,
                                              std::string lease);
  boost::asio::awaitable<RedisResponse> UnlockOn(size_t master, std::string key,
                                                 std::string token, Deadline deadline);
  // The SET on every master (in parallel unless sequential), in order.
  boost::asio::awaitable<std::vector<RedisResponse>> SetAll(const std::string& key,
                                                            const std::string& token,
                                                            const std::string& lease);
  // The release script on every master, in parallel, in order.
  boost::asio::awaitable<std::vector<RedlockUnlockReply>> UnlockAll(const std::string& key,
                                                                    const std::string& token,
                                                                    std::string* why);

  boost::asio::any_io_executor executor_;
  RedlockClientOptions options_;
  std::vector<std::shared_ptr<RedisConnection>> connections_;
  LockTokenGenerator tokens_;
  RedisScript release_;  // compare-and-delete, shared by every master
  ClientFaultPointHook fault_points_;  // may be empty
  // How far this client's wall clock was stepped (in-flight stalls).
  std::chrono::milliseconds wall_step_{0};
  bool closed_ = false;
};

}  // namespace locksmith
