// RedisLockClient: the `redis` lock client -- the single-instance recipe from
// the Redis distributed-lock page, over one pipelined RedisConnection.
//
//   Acquire: SET key token NX PX lease, token = 128 random bits as 32 hex
//            chars from a PRNG seeded by `seed` (a run replays).
//            validity_ms = lease - (reply time - call time) on steady_clock,
//            rounded up against us; the call time is taken before any lazy
//            reconnect, so it is never later than the send. May be <= 0 if
//            the reply came that late (the SET happened; the lease is gone).
//   Release: compare-and-delete Lua script by EVALSHA (loaded at Connect, its
//            SHA1 also known at compile time); on NOSCRIPT (a restarted Redis
//            without persistence forgets its script cache) the same call
//            retries with EVAL within the same deadline (RedisScript).
//   Extend:  owner-checked extend (PEXPIRE only while the value is ours), the
//            watchdog's renewal: 1 ok, 0 fail with not_held (the lock is lost);
//            validity_ms = lease - round trip, as for Acquire. It may run
//            while an Acquire / Release is in flight (the connection pipelines).
//
// Error -> outcome (fail = it certainly did not take effect):
//   reply OK / 1                                     ok
//   reply nil (SET) / 0 (release)                    fail  (held by another / not ours any more)
//   connect refused, connect or AUTH timeout, AUTH
//     rejected, deadline passed before the command
//     was written (all: nothing was sent)             fail
//   deadline passed after the command was written    unknown
//   connection lost after it was written             unknown
//   unparseable / unsolicited reply                  unknown (connection is dropped)
//   Close() while the call is pending                unknown (as LockClient requires)
//   error replies Redis issues before executing a
//     command: NOAUTH WRONGPASS NOPERM LOADING BUSY
//     MASTERDOWN READONLY OOM MISCONF NOREPLICAS
//     NOSCRIPT WRONGTYPE MOVED ASK TRYAGAIN
//     CROSSSLOT CLUSTERDOWN                          fail
//   any other error reply (ERR ..., unknown codes)   unknown
//   lease < 1 ms, or any call after Close()          fail  (nothing sent)
//   a release stalled at its own kReleaseInFlight
//     point (SetFaultPointHook) past its deadline,
//     its reply already read                         unknown (the reply was "lost")
// A release in doubt is sent again `release_retries` times at most
// (--redis-release-retries), `release_retry_delay` apart, until a request
// is answered: a reply of 1 is ok; any other answer after a request in
// doubt stays unknown (that request may have removed the lock). What a
// retry removes is the recipe's: the compare-and-delete script only the
// caller's own lock, redis-del-unlock's DEL whatever lock is there -- the
// next holder's, when the request in doubt had run (debate row 10).
// The definite list: processCommand() rejects with these codes before calling
// the command; SET NX PX has no write-then-error path; in the release script
// the only write is the final DEL, so a script that errors (WRONGTYPE on GET,
// READONLY on DEL, killed while busy) deleted nothing. Redis 7 keeps the code
// of an error raised inside a script as the reply's first word; older servers
// wrap it in "ERR Error running script", which then maps (conservatively) to
// unknown. Some ERR replies are in fact definite ("ERR max number of clients
// reached" on a server without a password) but are not told apart by their
// text: unknown is never wrong, a wrong fail would hide a violation.
//
// Recipes (`--client` on backend redis; RedisLockRecipe): `redis` is the one
// above. The others are the broken steps that flash-sale blog posts show
// that users meet in real code, kept to show their damage -- never use them:
//   redis-get-set       Acquire: GET key; if nil, SET key token PX lease. The
//                       check and the set are two commands: two clients that
//                       both read nil both "acquire".
//   redis-setnx-expire  Acquire: SETNX key token, then PEXPIRE key lease as a
//                       second command: a client that dies between the two
//                       leaves a key that never expires.
//   redis-del-unlock    Release: plain DEL key, no owner check: a client whose
//                       lease expired deletes the next holder's lock.
// Fencing (`fencing`, recipe redis only): the acquire is one script, SET NX PX
// then INCR of `key:fence` when the SET succeeded, whose reply is the fence
// (AcquireResult::fence): a token that only grows while the master keeps its
// data (a restart without persistence or a failover to a replica that missed
// the INCR can hand out a lower one again).
//
// Construction (what LockService::NewClient does):
//   std::make_unique<RedisLockClient>(executor,
//       RedisLockClientOptions{.endpoint = {"198.18.0.11", 6379, "pass"}}, seed);
// then `co_await client->Connect()`. Calls after a lost connection reconnect
// lazily. Clients of one run need distinct seeds (equal seeds = equal tokens,
// and a client could then release another's lock).
//
// Thread-safety: none; one worker on the client's executor issues calls (the
// connection would pipeline concurrent calls correctly, but LockClient
// promises one at a time). Destroy only when no call is pending.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "backends/lock_client.h"
#include "backends/redis_connection.h"
#include "backends/redis_lock_token.h"
#include "backends/redis_script.h"
#include "base/result.h"

namespace locksmith {

enum class RedisLockRecipe { kCorrect, kGetSet, kSetnxExpire, kDelUnlock };

// The client names of the recipes ("redis", "redis-get-set", ...), kCorrect's
// first.
const std::vector<std::string>& RedisRecipeNames();
// The recipe of a client name; an error naming the known ones.
Result<RedisLockRecipe> RedisRecipeOf(const std::string& client);

struct RedisLockClientOptions {
  RedisEndpoint endpoint;
  RedisLockRecipe recipe = RedisLockRecipe::kCorrect;
  bool fencing = false;  // kCorrect only: INCR a fence in the acquire script
  std::chrono::milliseconds timeout{1000};  // per Acquire / Release, send to reply
  std::chrono::milliseconds connect_timeout{1000};
  // WAIT for this many replicas after a granted SET (0: no WAIT), at most
  // wait_timeout. An acquire fewer replicas acknowledged is released (best
  // effort) and reported unknown: the SET did take effect on the master, and
  // whether a replica promoted later has it cannot be known.
  int wait_replicas = 0;
  std::chrono::milliseconds wait_timeout{100};
  // A release in doubt (timeout, connection lost, its reply "lost" at the
  // release pause point) is sent again up to this many times, this far
  // apart; 0: never (the release is unknown).
  int release_retries = 0;
  std::chrono::milliseconds release_retry_delay{100};
  // Optional: a connection shared with other clients on the same executor
  // (one pipelined connection per server, as ioredis keeps; endpoint is then
  // unused). A command that times out closes it and ends every client's
  // pending command in doubt; Close() leaves it open (later calls fail,
  // pending ones end when its owner closes it or at their deadline). The
  // harness never shares: each client has its own source address.
  std::shared_ptr<RedisConnection> shared_connection;
};

// Reply -> outcome mapping, as tabled above (pure; exposed for tests).
// `why` receives a message for fail / unknown.
bool IsDefiniteRedisError(const RedisReply& reply);
// The outcome of a call that failed in transport (not sent: fail; in doubt or
// closed: unknown) or got an error reply (definite: fail; others: unknown);
// nullopt when a value came back for the caller to read.
std::optional<Outcome> CallErrorOutcome(const RedisResponse& response, std::string* why);
Outcome AcquireOutcome(const RedisResponse& response, std::string* why);
Outcome ReleaseOutcome(const RedisResponse& response, std::string* why);

class RedisLockClient final : public LockClient {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::string_view kReleaseScript =
      "if redis.call(\"get\",KEYS[1]) == ARGV[1] then return redis.call(\"del\",KEYS[1]) "
      "else return 0 end";
  static constexpr std::string_view kReleaseScriptSha1 = "b70c2384248f88e6b75b9f89241a180f856ad852";
  // KEYS[1] lock key, KEYS[2] its fence counter; ARGV token, lease ms.
  static constexpr std::string_view kFencedAcquireScript =
      "if redis.call(\"set\",KEYS[1],ARGV[1],\"NX\",\"PX\",ARGV[2]) then "
      "return redis.call(\"incr\",KEYS[2]) else return false end";
  static constexpr std::string_view kExtendScript =
      "if redis.call(\"get\",KEYS[1]) == ARGV[1] then "
      "return redis.call(\"pexpire\",KEYS[1],ARGV[2]) else return 0 end";

  RedisLockClient(boost::asio::any_io_executor executor, RedisLockClientOptions options,
                  uint64_t seed);

  // Connects, authenticates and loads the release script.
  boost::asio::awaitable<Status> Connect() override;
  boost::asio::awaitable<AcquireResult> Acquire(const std::string& key,
                                                std::chrono::milliseconds lease) override;
  boost::asio::awaitable<ReleaseResult> Release(const std::string& key,
                                                const std::string& token) override;
  boost::asio::awaitable<ExtendResult> Extend(const std::string& key, const std::string& token,
                                              std::chrono::milliseconds lease) override;
  void Close() override;
  std::map<std::string, int64_t> Counters() const override;
  // Every recipe: kReleaseInFlight, after a release request was answered,
  // before its reply is read; redis-setnx-expire also kAcquireAnswered,
  // between SETNX won and PEXPIRE.
  void SetFaultPointHook(ClientFaultPointHook hook) override { fault_points_ = std::move(hook); }
  ClientFaultPoints OwnFaultPoints() const override;

  // Releases and extends that met NOSCRIPT and fell back to EVAL.
  uint64_t noscript_fallbacks() const {
    return release_.noscript_fallbacks() + extend_.noscript_fallbacks();
  }
  // TCP connections opened so far (reconnects show up here).
  uint64_t connects() const { return connection_->connects(); }

 private:
  boost::asio::any_io_executor executor_;
  RedisLockClientOptions options_;
  std::shared_ptr<RedisConnection> connection_;  // ours, or options_.shared_connection
  LockTokenGenerator tokens_;
  uint64_t expire_failures_ = 0;  // setnx-expire: SETNX won, PEXPIRE did not answer 1
  ClientFaultPointHook fault_points_;  // may be empty

  // One release request of the recipe, with a deadline of its own.
  boost::asio::awaitable<ReleaseResult> ReleaseOnce(const std::string& key,
                                                    const std::string& token);

  // The recipes' acquire commands, between the call time `start` and the
  // reply; each returns the outcome and fills fence / error.
  boost::asio::awaitable<Outcome> SendAcquire(const std::string& key, const std::string& token,
                                              std::string_view lease_ms,
                                              Clock::time_point deadline, AcquireResult& result);
  RedisScript release_{kReleaseScript, kReleaseScriptSha1};
  RedisScript extend_{kExtendScript};
};

}  // namespace locksmith
