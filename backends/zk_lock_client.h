// ZkLockClient: the ZooKeeper lock recipes over one ZkSession per client.
//
//   zk-fair   (the recipe of the ZooKeeper docs and Curator's
//             InterProcessMutex) under /locksmith/<key>: Acquire creates an
//             ephemeral sequential child "_c_<guid>-lock-" (guid = the
//             acquire's token, 32 hex chars from the client's seed); the
//             child with the lowest sequence holds; every other waiter watches
//             only its predecessor (Exists with a watch) and looks again when
//             it goes. A create whose reply was lost (connection loss,
//             deadline) is not simply retried: the children are listed and a
//             child carrying the guid is ours (Curator's protected mode), so
//             no orphan node blocks the lock.
//   zk-rw     the read-write lock recipe (ZooKeeper's recipes, Curator's
//             InterProcessReadWriteLock) under /locksmith-rw/<key>: the same
//             guid-protected ephemeral sequential create as zk-fair, named
//             "_c_<guid>-read-" for a shared acquire (AcquireShared) and
//             "_c_<guid>-write-" for an exclusive one (Acquire). A reader
//             holds when no write node is earlier than its own and otherwise
//             watches only the nearest earlier write node; a writer holds
//             when its node is the lowest and otherwise watches only the
//             nearest earlier node of either kind. Readers share the lock.
//   zk-naive  one ephemeral node /locksmith-naive/<key> holding the token;
//             on NodeExists the client watches it and tries again when it
//             goes: every waiter wakes on each release (the herd effect).
//             A node whose create reply was lost is ours when its
//             ephemeralOwner is our session.
//
// zk-fair and zk-rw share the acquire (create, find a lost create again by
// the guid, wait for the blocker, give up); only the node name and which
// earlier node blocks differ (ZkBlockerOf).
//
// The fence is the lock node's czxid (not the sequence suffix, which starts
// again when the parent is recreated). ZooKeeper has no lease: the node
// stays until released or until the session expires, so an ok acquire says
// session_lease (the lock is valid until the client reports it lost), and
// its validity_ms is only what the session is sure to last: min(lease,
// negotiated session timeout - time since the request that proved the lock
// was sent), as the server cannot expire the session, and delete the node,
// earlier than a session timeout after it last heard from the client.
//
// Acquire waits for the lock up to `timeout` (the run's client timeout), or
// the acquire wait (SetAcquireWait) when that is longer; then it gives up and removes its own node within a second `timeout`.
// Outcome table:
//   our node is the lowest child / the naive node was created        ok
//   not connected before the deadline (nothing sent)                  fail
//   gave up waiting, our node deleted (or certainly never made)       fail, busy
//   gave up waiting, our node's create or delete has an unknown
//     fate (no reply, connection loss)                                unknown
//   the session expired while waiting (the server removed our node)   fail
//   a ZooKeeper error for a request that was certainly not applied    fail
//   any call after Close()                                            fail
// A node left behind by an unknown acquire is remembered and deleted by the
// next call, as soon as the client can tell it is ours (the guid, or the
// ephemeral owner), so it cannot block the lock for the rest of the run.
//
// Release deletes the lock node: ok; the node is gone (our session expired
// and the server removed it: the lock was lost) -> fail "lock lost"; the
// session expired (ZSESSIONEXPIRED, or known expired) -> fail "lock lost";
// no reply or connection loss -> unknown. The client also knows its lock is
// lost when it has been cut off from the ensemble for longer than its
// session timeout; the release says so in its error ("lock lost: ...").
// It does not wait for the release to say so: as soon as the session
// expires, or the session has been cut off for longer than its timeout (a
// timer from the moment it was cut off), each lock it holds is reported
// lost to the event sink (LockEvent::kLost, once per lock, as the redis
// watchdog client reports a failed renewal), which the workload records as a
// lock-lost op; the report says how long before it the session was cut off
// from the ensemble (LockEvent::cut_off_ms: the lock was in doubt from
// then). While paused (SetPaused) nothing is reported, as a stopped
// process notices nothing; the loss is reported when it goes on. A lock
// reported lost is forgotten (its Release fails: not held), and its node,
// should the server not have expired the session after all, is deleted by
// the next call like an abandoned acquire's. Without a sink nothing is
// reported and the release says it.
//
// The session reaches the peers through a TcpRelay of the client's own, so
// that SetPaused (the client-pause nemesis) stops its heartbeats as a real
// process pause would: Curator's tech note 10, a holder paused past its
// session, shows up as expired-lease double holders.
//
// Thread-safety: none; one worker on the client's executor issues calls,
// and the session events and the loss timer run on the same executor.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>

#include "backends/lock_client.h"
#include "backends/redis_lock_token.h"
#include "backends/tcp_relay.h"
#include "backends/zk_session.h"
#include "base/result.h"

namespace locksmith {

struct ZkLockClientOptions {
  std::vector<RelayTarget> peers;  // every peer's client address and port
  std::string source_address;      // bind the client's connections to it when non-empty
  std::chrono::milliseconds session_timeout{2000};
  std::chrono::milliseconds timeout{1000};  // per Acquire wait / per request
};

enum class ZkRecipe { kFair, kNaive, kReadWrite };

// Names of the recipes the zookeeper backend offers as lock clients; the
// first is the default.
std::vector<std::string> ZkRecipeNames();
std::string ZkDefaultRecipe();
// Those of them with shared (read) locks: {"zk-rw"}.
std::vector<std::string> ZkSharedRecipeNames();

// The sequence number of a lock node's name ("..-lock-0000000012",
// "..-read-0000000012" or "..-write-0000000012" -> 12), or -1 when it has
// none (pure; exposed for tests).
int64_t ZkSequenceOf(const std::string& name);
// The children of a fair or read-write lock sorted by sequence, lowest first
// (pure).
std::vector<std::string> ZkSortedBySequence(std::vector<std::string> children);
// True for a read-write lock's shared node ("..-read-0000000012").
bool ZkIsReadNode(const std::string& name);
// Why a client must believe its session, and so its locks, gone at `now`:
// the session expired, or it has been cut off since `suspended_since` for
// longer than `session_timeout`; "" when neither (pure; exposed for tests).
std::string ZkLockLostReason(bool expired,
                             std::optional<std::chrono::steady_clock::time_point> suspended_since,
                             std::chrono::milliseconds session_timeout,
                             std::chrono::steady_clock::time_point now);
// Which node of `sorted` (ZkSortedBySequence) the node at `at` waits for:
// the index of the nearest earlier write node for a read node, of the
// nearest earlier node of any kind otherwise; -1 when none (it holds).
int64_t ZkBlockerOf(const std::vector<std::string>& sorted, size_t at);

class ZkLockClient final : public LockClient {
 public:
  ZkLockClient(boost::asio::any_io_executor executor, ZkLockClientOptions options,
               ZkRecipe recipe, uint64_t seed);

  boost::asio::awaitable<Status> Connect() override;
  boost::asio::awaitable<AcquireResult> Acquire(const std::string& key,
                                                std::chrono::milliseconds lease) override;
  boost::asio::awaitable<ReleaseResult> Release(const std::string& key,
                                                const std::string& token) override;
  // zk-rw only; the other recipes refuse (kFail).
  bool SupportsShared() const override { return recipe_ == ZkRecipe::kReadWrite; }
  boost::asio::awaitable<AcquireResult> AcquireShared(const std::string& key,
                                                      std::chrono::milliseconds lease) override;
  // Closes the relay first, then the session: zookeeper_close blocks this
  // thread up to 1.5 s for the server's answer, which only this thread's
  // relay could carry. The session, and the lock nodes it owns, live on the
  // servers until the session times out (a run's clients close at its end).
  void Close() override;
  // Nothing more reaches the ensemble, not even the close request: the
  // session, and the lock nodes it owns, live until the session times out.
  void Crash() override;
  // Freezes the session's traffic (see TcpRelay): the server hears nothing
  // from this client, and the session expires after its timeout.
  // Going on reports the locks lost meanwhile.
  void SetPaused(bool paused) override;
  void SetEventSink(LockEventSink sink) override { sink_ = std::move(sink); }
  // The wait of the next acquires for their turn: the longer of `wait` and
  // the client timeout (the recipes block: they queue for the lock).
  void SetAcquireWait(std::chrono::milliseconds wait) override { acquire_wait_ = wait; }

  // Node watch events this client received (each wake of a waiter).
  int64_t watch_events() const { return session_.watch_events(); }
  // {"watch_events", "sessions", "locks_lost"}.
  std::map<std::string, int64_t> Counters() const override {
    return {{"watch_events", watch_events()}, {"sessions", sessions()},
            {"locks_lost", locks_lost_}};
  }
  int64_t sessions() const { return session_.generation(); }

 private:
  using Clock = ZkSession::Clock;
  // Acquire and AcquireShared: connects, cleans up, and runs the recipe.
  boost::asio::awaitable<AcquireResult> AcquireMode(const std::string& key,
                                                    std::chrono::milliseconds lease, bool shared);
  // zk-fair and zk-rw: a sequential node named `kind` ("lock", "read",
  // "write") under `root`/`key`.
  boost::asio::awaitable<AcquireResult> AcquireSequential(const std::string& root,
                                                          const std::string& key,
                                                          const std::string& kind,
                                                          std::chrono::milliseconds lease,
                                                          Clock::time_point deadline);
  // An acquire's sequential node, or the result that ended the acquire.
  struct SequentialNode {
    std::string path;
    int64_t czxid = 0;
    std::optional<AcquireResult> ended;
  };
  // Creates the acquire's node under `parent`, named by `guid` so that a
  // create whose reply was lost is found again.
  boost::asio::awaitable<SequentialNode> CreateSequential(const std::string& parent,
                                                          const std::string& guid,
                                                          const std::string& kind,
                                                          Clock::time_point deadline);
  // Waits, watching the node it waits for, until `node` holds the lock (or
  // gives up at the deadline).
  boost::asio::awaitable<AcquireResult> AwaitTurn(const std::string& parent,
                                                  const std::string& key,
                                                  const std::string& guid,
                                                  const SequentialNode& node,
                                                  std::chrono::milliseconds lease,
                                                  Clock::time_point deadline);
  boost::asio::awaitable<AcquireResult> AcquireNaive(const std::string& key,
                                                     std::chrono::milliseconds lease,
                                                     Clock::time_point deadline);
  // Makes the persistent parents of `path` (each once per session).
  boost::asio::awaitable<int> EnsureParents(const std::string& path, Clock::time_point deadline);
  // Remembers the node of a lock given up (an unknown release, a lock
  // reported lost) for CleanUpAbandoned.
  struct Held;
  void Abandon(const Held& held, const std::string& token);
  // Deletes nodes left by unknown acquires, where it can tell them.
  boost::asio::awaitable<void> CleanUpAbandoned(Clock::time_point deadline);
  // Gives up an acquire whose node may exist: deletes it, or remembers it.
  boost::asio::awaitable<AcquireResult> GiveUp(const AcquireResult& given_up,
                                               const std::string& parent,
                                               const std::string& guid,
                                               const std::string& maybe_node);
  int64_t ValidityMs(std::chrono::milliseconds lease, Clock::time_point proof_sent) const;
  // Non-empty when the client must believe its session (and locks) gone.
  std::string LockLostReason() const;
  // After a session event: reports lost locks, and when cut off, arms the
  // timer that reports them once the cut outlasts the session timeout.
  void OnSessionEvent();
  // Reports every held lock that is lost (not while paused, closed, or
  // without a sink) and forgets it; its node, should it outlive the report,
  // is abandoned (Abandon).
  void ReportLostLocks();

  ZkLockClientOptions options_;
  std::chrono::milliseconds acquire_wait_{0};  // SetAcquireWait
  ZkRecipe recipe_;
  TcpRelay relay_;  // the session talks to the peers through it
  ZkSession session_;
  boost::asio::steady_timer lost_timer_;  // fires when a cut outlasts the session
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);  // for the timer's handler
  LockEventSink sink_;
  bool paused_ = false;
  int64_t locks_lost_ = 0;
  LockTokenGenerator tokens_;
  bool closed_ = false;
  int64_t parents_generation_ = -1;
  std::set<std::string> parents_made_;
  // Abandoned acquires: fair, rw: parent -> guids; naive: node paths. Only valid
  // in the session they were made in.
  int64_t abandoned_generation_ = 0;
  std::map<std::string, std::set<std::string>> abandoned_guids_;
  std::set<std::string> abandoned_nodes_;
  // token -> (node path, session generation) of locks this client holds.
  struct Held {
    std::string node;
    int64_t generation = 0;
    std::string key;
  };
  std::map<std::string, Held> held_;
};

// The client `name` (one of ZkRecipeNames()).
Result<std::unique_ptr<LockClient>> MakeZkLockClient(const std::string& name,
                                                     boost::asio::any_io_executor executor,
                                                     ZkLockClientOptions options, uint64_t seed);

}  // namespace locksmith
