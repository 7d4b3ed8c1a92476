// FakeLockService: an in-memory lock service for unit tests of workloads and
// the run loop (no servers). Keys expire by lease on the steady clock (or
// the clock `now` reads: a test's FakeClock). It can
// be told to break mutual exclusion (grant every acquire) or to answer some
// calls as unknown, to check that workloads and checkers notice. Runs on one
// io_context thread; not thread-safe. Test-only: not part of any library.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "backends/lock_service.h"
#include "backends/task_group.h"

namespace locksmith::testing {

struct FakeLockState {
  struct Entry {
    std::string token;
    std::chrono::steady_clock::time_point expires;
    int count = 1;  // holds of a reentrant lock
  };
  std::map<std::string, Entry> keys;
  std::function<std::chrono::steady_clock::time_point()> now = std::chrono::steady_clock::now;
  bool grant_everything = false;  // break mutual exclusion on purpose
  int unknown_every = 0;          // every n-th call (n > 0) answers unknown
  int throw_on_acquire = 0;       // the n-th acquire (n > 0) throws, as a client bug would
  // The n-th acquire (n > 0) starts a coroutine of the client's own that
  // throws (a renewal with a bug), among the executor's BackgroundTasks.
  int throw_in_background_on_acquire = 0;
  int calls = 0;
  int acquires = 0;
  int connect_limit = -1;         // connects after this many fail (-1: none)
  int connects = 0;
  int open_clients = 0;           // connected and not yet closed
  bool reentrant = false;         // an acquire by the holder re-enters (same token, count + 1)
  // Every n-th ok acquire (n > 0): the client reports a renewal, then that
  // the lock is lost (the key is dropped), as a watchdog would.
  int lose_every = 0;
  int ok_acquires = 0;
  // Read-write locks: clients take shared acquires (SupportsShared); key ->
  // reader token -> its lease's end. A shared acquire fails while a writer
  // holds the key, an exclusive one while a reader does.
  bool shared_locks = false;
  std::map<std::string, std::map<std::string, std::chrono::steady_clock::time_point>> readers;

  // Drops expired readers of `key`; true when some reader is left.
  bool HasReaders(const std::string& key) {
    auto& of = readers[key];
    std::erase_if(of, [this](const auto& r) { return r.second <= now(); });
    return !of.empty();
  }
};

class FakeLockClient : public LockClient {
 public:
  FakeLockClient(FakeLockState& state, uint64_t seed) : state_(state), seed_(seed) {}
  ~FakeLockClient() override { *alive_ = false; }

  boost::asio::awaitable<Status> Connect() override {
    if (state_.connect_limit >= 0 && state_.connects >= state_.connect_limit) {
      co_return Error{"connection refused"};
    }
    ++state_.connects;
    ++state_.open_clients;
    open_ = true;
    co_return OkStatus();
  }

  boost::asio::awaitable<AcquireResult> Acquire(const std::string& key,
                                                std::chrono::milliseconds lease) override {
    co_await Yield();
    if (++state_.acquires == state_.throw_on_acquire) throw std::runtime_error("client bug");
    if (state_.acquires == state_.throw_in_background_on_acquire) {
      auto executor = co_await boost::asio::this_coro::executor;
      BackgroundTasks(executor).Spawn("renewals", BuggyRenewals());
    }
    AcquireResult r;
    r.token = std::to_string(seed_) + "-" + std::to_string(++acquisitions_);
    if (Unknown()) co_return r;
    const auto now = state_.now();
    auto it = state_.keys.find(key);
    const bool held = it != state_.keys.end() && it->second.expires > now;
    if (state_.reentrant && held && held_.count(key) && held_[key] == it->second.token) {
      ++it->second.count;
      it->second.expires = now + lease;
      r.token = it->second.token;
      r.outcome = Outcome::kOk;
      r.validity_ms = lease.count();
      co_return r;
    }
    if (!state_.grant_everything && (held || state_.HasReaders(key))) {
      r.outcome = Outcome::kFail;
      r.error = kHeldByAnother;
      r.busy = true;
      co_return r;
    }
    state_.keys[key] = {r.token, now + lease};
    held_[key] = r.token;
    r.outcome = Outcome::kOk;
    r.validity_ms = lease.count();
    // Granted, not yet returned: the in-flight point (its clock step is
    // shown in the detail, as no fake clock reads it).
    if (fault_points_) {
      const ClientFaultEffect effect =
          co_await fault_points_(ClientFaultPoint::kAcquireInFlight, key);
      r.detail = {{"clock_step_ms", effect.clock_step.count()}};
    }
    if (state_.lose_every > 0 && ++state_.ok_acquires % state_.lose_every == 0 && sink_) {
      // Named locals, not temporaries in a co_await expression (GCC 12
      // destroys such a lambda's captures twice).
      auto executor = co_await boost::asio::this_coro::executor;
      std::function<void()> report = [this, alive = alive_, key, token = r.token, lease] {
        if (!*alive || !sink_) return;  // closed or gone meanwhile
        sink_(LockEvent{LockEvent::Kind::kRenewed, key, token, Outcome::kOk, lease.count(), ""});
        state_.keys.erase(key);
        sink_(LockEvent{LockEvent::Kind::kLost, key, token, Outcome::kOk, 0, "renewal: gone"});
      };
      boost::asio::post(executor, std::move(report));
    }
    co_return r;
  }

  static boost::asio::awaitable<void> BuggyRenewals() {
    throw std::runtime_error("renewal bug");
    co_return;
  }

  bool SupportsShared() const override { return state_.shared_locks; }
  boost::asio::awaitable<AcquireResult> AcquireShared(const std::string& key,
                                                      std::chrono::milliseconds lease) override {
    if (!state_.shared_locks) co_return co_await LockClient::AcquireShared(key, lease);
    co_await Yield();
    AcquireResult r;
    r.token = std::to_string(seed_) + "-" + std::to_string(++acquisitions_);
    if (Unknown()) co_return r;
    const auto now = state_.now();
    auto it = state_.keys.find(key);
    if (!state_.grant_everything && it != state_.keys.end() && it->second.expires > now) {
      r.outcome = Outcome::kFail;
      co_return r;
    }
    state_.readers[key][r.token] = now + lease;
    r.outcome = Outcome::kOk;
    r.validity_ms = lease.count();
    co_return r;
  }

  boost::asio::awaitable<ReleaseResult> Release(const std::string& key,
                                                const std::string& token) override {
    co_await Yield();
    ReleaseResult r;
    if (Unknown()) co_return r;
    if (state_.HasReaders(key) && state_.readers[key].erase(token) > 0) {
      r.outcome = Outcome::kOk;
      co_return r;
    }
    auto it = state_.keys.find(key);
    const bool ours = it != state_.keys.end() && it->second.token == token &&
                      it->second.expires > state_.now();
    if (ours && --it->second.count <= 0) state_.keys.erase(it);
    r.outcome = ours ? Outcome::kOk : Outcome::kFail;
    co_return r;
  }

  void Close() override {
    if (open_) --state_.open_clients;
    open_ = false;
    sink_ = nullptr;
  }
  void SetEventSink(LockEventSink sink) override { sink_ = std::move(sink); }
  // kAcquireInFlight, as Redlock's: once granted, before the grant is read.
  void SetFaultPointHook(ClientFaultPointHook hook) override { fault_points_ = std::move(hook); }
  ClientFaultPoints OwnFaultPoints() const override {
    return {ClientFaultPoint::kAcquireInFlight};
  }

 private:
  // Every call suspends once, as a network round trip would.
  static boost::asio::awaitable<void> Yield() {
    co_await boost::asio::post(co_await boost::asio::this_coro::executor,
                               boost::asio::use_awaitable);
  }
  bool Unknown() {
    return state_.unknown_every > 0 && ++state_.calls % state_.unknown_every == 0;
  }

  FakeLockState& state_;
  uint64_t seed_;
  int acquisitions_ = 0;
  bool open_ = false;
  LockEventSink sink_;
  ClientFaultPointHook fault_points_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  std::map<std::string, std::string> held_;  // key -> the token this client last got
};

class FakeLockService : public LockService {
 public:
  Status Start() override { return OkStatus(); }
  void Stop() override {}
  std::string Backend() const override { return "fake"; }
  NodeTable Table() const override {
    return {{"n1", kPrimaryRole, "n1", "fake", "127.0.0.1", 0}};
  }
  std::unique_ptr<LockClient> NewClient(boost::asio::any_io_executor,
                                        const ClientSlot& slot) override {
    slots.push_back(slot);
    return std::make_unique<FakeLockClient>(state, slot.seed);
  }

  FakeLockState state;
  std::vector<ClientSlot> slots;  // every NewClient's slot, in order
};

// A FakeLockService whose node table is one node per host of `cluster`, named
// as the host: the first the primary, the others replicas (for faults that
// resolve targets and hosts from the table).
class ClusterTableService : public FakeLockService {
 public:
  explicit ClusterTableService(Cluster& cluster) {
    for (Host* h : cluster.Hosts()) {
      table.push_back({h->Name(), table.empty() ? kPrimaryRole : kReplicaRole,
                       h->Name(), "fake", h->Address(), 6379});
    }
  }
  NodeTable Table() const override { return table; }
  std::vector<NodeRoleSpec> Roles() const override { return {{kPrimaryRole}, {kReplicaRole}}; }
  NodeTable table;
};

}  // namespace locksmith::testing
