// LockClient: one client's connection to a lock service. All calls are
// coroutines on the run's Boost.Asio io_context and every call has a deadline;
// a timeout or a lost connection is Outcome::kUnknown (Jepsen's :info, "may
// have happened"), never kFail. Not thread-safe: one client belongs to one
// worker, which issues one call at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "backends/client_fault_point.h"
#include "base/result.h"

namespace locksmith {

enum class Outcome { kOk, kFail, kUnknown };

// The error of an acquire the service refused because another client holds
// the lock (AcquireResult::busy).
inline constexpr char kHeldByAnother[] = "held by another client";

struct AcquireResult {
  Outcome outcome = Outcome::kUnknown;
  std::string token;             // set when ok (and when unknown: the token tried)
  std::optional<int64_t> fence;  // fencing token, where the backend has one
  int64_t validity_ms = 0;       // lease left by the client's own reckoning
  // The lock lasts as long as the client's session, not a lease (ZooKeeper:
  // the lock node goes when the session expires): valid until the client
  // reports it lost, and validity_ms is only what the session was sure to
  // last at the grant.
  bool session_lease = false;
  std::string error;             // why fail / unknown
  // What the backend can say about the acquire beyond the fields above
  // (Redlock: the masters that granted it): an object whose entries join the
  // op's value in the history; null when there is nothing.
  nlohmann::json detail;
  // The client died at its own kAcquireAnswered point (SetFaultPointHook): it sent nothing
  // more and dropped its connections; the outcome is kUnknown.
  bool crashed = false;
  // kFail because the service answered that the lock is taken (another
  // holds it, or it stayed taken for the whole wait), as opposed to a fail
  // for want of an answer (nothing sent, no master, not connected).
  bool busy = false;
};

struct ReleaseResult {
  Outcome outcome = Outcome::kUnknown;
  std::string error;
  // Requests sent: more than 1 when a client sent a release in doubt again
  // (redis's --redis-release-retries).
  int attempts = 1;
};

// An owner-checked lease extension (Extend): ok = extended, validity_ms left
// by the client's reckoning (lease - round trip); fail = not extended, and
// `not_held` says the server answered that the lock is not held with this
// token any more (gone, or another's): the lock is lost; unknown = may have
// been extended.
struct ExtendResult {
  Outcome outcome = Outcome::kUnknown;
  bool not_held = false;
  int64_t validity_ms = 0;
  std::string error;
};

// What a lock client reports on its own while a lock is held, not as the
// answer to a call: a lease renewal (kRenewed: outcome ok with validity_ms,
// fail, or unknown) or the notice that the lock is lost (kLost; the holder
// must stop acting as its holder). The workload records each as a lone op
// of the holding worker's process (see docs/history-format.md).
struct LockEvent {
  enum class Kind { kRenewed, kLost };
  Kind kind = Kind::kRenewed;
  std::string key;
  std::string token;
  Outcome outcome = Outcome::kOk;
  int64_t validity_ms = 0;  // kRenewed ok: lease left from now
  std::string error;        // why fail / unknown / lost
  // kLost: how long before this report the client was cut off from the
  // service (from then on its lock was in doubt); -1 when it cannot tell.
  int64_t cut_off_ms = -1;
};
// Called on the client's executor, never after Release of that key began or
// after Close.
using LockEventSink = std::function<void(LockEvent)>;

// How long a client's first connection may take, however short its client
// timeout: it is the run's set-up, not an op of the history (a loaded
// machine's database forks a backend for it slowly). Later connections are
// part of an op, bounded by the op's deadline.
inline constexpr std::chrono::seconds kFirstConnectAllowance{5};

class LockClient {
 public:
  virtual ~LockClient() = default;
  // Opens connections; an error here means the client cannot start at all.
  virtual boost::asio::awaitable<Status> Connect() = 0;
  virtual boost::asio::awaitable<AcquireResult> Acquire(const std::string& key,
                                                        std::chrono::milliseconds lease) = 0;
  virtual boost::asio::awaitable<ReleaseResult> Release(const std::string& key,
                                                        const std::string& token) = 0;
  // Read-write locks: a shared (read) acquire may hold `key` together with
  // other shared holders, never with an exclusive (Acquire) one; its token is
  // given back with Release. Only a client whose SupportsShared() is true
  // takes them; a workload that asks for shared acquires refuses any other
  // client before it starts (BackendEntry::shared_clients: at config time).
  // The default certainly takes nothing: kFail.
  virtual bool SupportsShared() const { return false; }
  virtual boost::asio::awaitable<AcquireResult> AcquireShared(const std::string& key,
                                                              std::chrono::milliseconds lease) {
    (void)key;
    (void)lease;
    AcquireResult refused;
    refused.outcome = Outcome::kFail;
    refused.error = "this lock client has no shared (read) locks";
    co_return refused;
  }
  // Drops connections; pending calls complete as kUnknown.
  virtual void Close() = 0;
  // The client's process dies (the client-crash fault): its connections drop
  // with no goodbye. A client whose server keeps a session past a lost
  // connection (ZooKeeper) must not end it politely, or the server would
  // drop a dead client's locks at once instead of when its session expires.
  virtual void Crash() { Close(); }
  // The client's process stops (true), as in a long GC pause, and goes on
  // (false): the client-pause nemesis's stall. A client whose library keeps a
  // session alive on threads of its own stops talking to the servers until
  // it goes on; others need nothing (the stalled worker is the pause).
  virtual void SetPaused(bool paused) { (void)paused; }
  // Where the client reports its own events (renewals, lock lost); a
  // client that has none ignores it. Set before Connect.
  virtual void SetEventSink(LockEventSink sink) { (void)sink; }
  // The client-side fault points (backends/client_fault_point.h) that lie
  // inside this client's own calls, where no worker can reach: at each it
  // has, the client awaits `hook(point, key)` and honours the effect. A
  // client with an acquire of more than one request passes
  // kAcquireAnswered where dying hurts most (redis-setnx-expire: SETNX won,
  // PEXPIRE not sent); on `crashed` it drops its connections, sends
  // nothing more and returns kUnknown with `crashed`. kAcquireInFlight comes
  // once the servers' replies granted the lock and before the client reads
  // its clock to judge whether it is still valid (Redlock's elapsed-time
  // check); it applies the effect's clock step to its own wall clock.
  // kReleaseInFlight comes once the server answered a release request and
  // before the client reads the reply: a stall past the call's deadline
  // leaves that request in doubt, as when its reply is lost on the way
  // (the client's timer fires before it reads the socket, as Node's event
  // loop runs its timers before it polls). Set before the first call; a
  // client without such points ignores it.
  virtual void SetFaultPointHook(ClientFaultPointHook hook) { (void)hook; }
  // The points this client passes itself once it has the hook (its worker
  // passes the others). May grow as the client finds its servers (a
  // Sentinel client has none before its first master).
  virtual ClientFaultPoints OwnFaultPoints() const { return {}; }
  // How long a blocking client (one that queues for a held lock, as the
  // ZooKeeper recipes do) waits in its next Acquire for the lock to come
  // its turn: the longer of `wait` and its own client timeout. A try-lock
  // client (one request, a definite no when the lock is held) ignores it:
  // the workload retries those itself within the same wait.
  virtual void SetAcquireWait(std::chrono::milliseconds wait) { (void)wait; }
  // Extends the lease of the lock `token` holds on `key` to `lease` from
  // now, only while `token` still holds it (an owner-checked extend): what a
  // watchdog calls. May run while another call of the same client is in
  // flight. The default cannot extend (fail, nothing sent).
  virtual boost::asio::awaitable<ExtendResult> Extend(const std::string& key,
                                                      const std::string& token,
                                                      std::chrono::milliseconds lease) {
    (void)key;
    (void)token;
    (void)lease;
    co_return ExtendResult{Outcome::kFail, false, 0, "this client cannot extend a lease"};
  }
  // What the client counted about itself (watch notifications, sessions,
  // ...); the workload records it once at the end as a "client-stats" op.
  virtual std::map<std::string, int64_t> Counters() const { return {}; }
};

}  // namespace locksmith
