// ResourceWorkload: what the workloads with a protected resource (inventory,
// counter) share. `concurrency` workers over `keys` keys; each loops:
// acquire the key's lock, read the resource (ResourceClient, on the
// ResourceStore), work, write what the plan makes of the value, release. The
// read-modify-write is deliberately not atomic: only the lock protects it.
// With --fencing on, the read and the write carry the acquire's fence and
// the store rejects them when stale. Every lock call and every read and write
// is an op of the worker's process; the store's set-up (`init`) and the final
// reads after the heal (`final`) are ops of kResourceProcess. A stall the
// client-pause nemesis asks for is taken before the write (pause_at "write",
// the GC pause of the lock debate) or before the release ("release").
// Lock events the client reports while a worker holds a lock (renewals,
// lock lost: HoldEvents) are recorded as lone ops of its process; like seed
// 002's code, the holder does not look at them: it writes and releases
// anyway, and the checkers judge the damage. A workload may take some holds
// shared (PlanHold) and do its own critical section (Critical) and final
// reads (ReadFinal); the defaults are the read-modify-write above.
// Runs on one io_context thread; not thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/option_set.h"
#include "checker/stuck_lock_checker.h"
#include "workloads/resource_client.h"
#include "workloads/workload.h"

namespace locksmith {

class LockClient;
class OpLog;

// The process of the store's set-up and final reads in the history.
inline constexpr int64_t kResourceProcess = 1'000'000'000;

struct ResourcePlan {
  std::string prefix;     // keys prefix-0 .. prefix-{keys-1}: lock and resource alike
  int keys = 1;
  int64_t initial = 0;    // each key's value at the start
  bool sells = false;     // true: write value - 1 and an order while value > 0; false: value + 1
  MsRange work{20, 20};   // between the read and the write
  MsRange backoff{5, 50};
  int64_t lease_ms = 1000;
  std::string pause_at = "write";
  int stuck_leases = 3;   // the stuck-lock checker's threshold (--stuck-leases)
};

// The pause points, for the workloads' --pause-at.
std::vector<std::string> PausePoints();

// The options of a hold that every resource workload takes (config keys
// "work", "backoff", "lease_ms", "pause_at", "stuck_leases"); each
// workload's options add their own keys to them.
struct ResourceHoldOptions {
  MsRange work{20, 20};
  MsRange backoff{5, 50};
  int64_t lease_ms = 1000;
  std::string pause_at = "write";
  int stuck_leases = StuckLockChecker::kDefaultLeases;

  // `work_help` and `pause_help`: the help of --work and --pause-at, in the
  // workload's words (string literals: the option set keeps the pointers).
  void DeclareHold(OptionSet& set, const char* work_help, const char* pause_help);
  // The plan of `keys` keys named prefix-N, each starting at `initial`.
  ResourcePlan Plan(std::string prefix, int keys, int64_t initial, bool sells) const;
};

class ResourceWorkload : public Workload {
 public:
  explicit ResourceWorkload(ResourcePlan plan) : plan_(std::move(plan)) {}

  boost::asio::awaitable<Status> Run(WorkloadContext& ctx) override;
  boost::asio::awaitable<Status> FinalReads(WorkloadContext& ctx) override;
  std::chrono::milliseconds LongestLease() const override {
    return std::chrono::milliseconds(plan_.lease_ms);
  }

 protected:
  // The store is never faulted: a generous deadline for its calls.
  static constexpr std::chrono::milliseconds kStoreTimeout{2000};

  // How a worker takes its next hold.
  struct HoldPlan {
    bool shared = false;     // a shared (read) acquire (only with a client that has them)
    bool reader = false;     // the hold only reads the resource
    nlohmann::json tags;     // added to the acquire's and the release's invoke values
  };
  // A hold in progress: what its critical section works with.
  struct Holder {
    WorkloadContext& ctx;
    OpLog& log;
    LockClient& client;
    ResourceClient& store;
    const std::string& key;
    std::optional<Fence> fence;    // the acquire's fence and token, with --fencing on
    std::mt19937_64& rng;
    int worker;
    int64_t& writes;               // the worker's writes so far
    const HoldPlan& plan;
  };
  // A final read's completion.
  struct FinalRead {
    Outcome outcome = Outcome::kUnknown;
    nlohmann::json value;
    std::string error;
  };

  const ResourcePlan& plan() const { return plan_; }
  // `own` (the checkers of the workload's resource) followed by the checks
  // every resource workload runs: fencing, foreign releases, stuck locks,
  // performance and client statistics.
  std::vector<std::unique_ptr<Checker>> WithLockCheckers(
      std::vector<std::unique_ptr<Checker>> own) const;
  std::string Key(int i) const { return plan_.prefix + "-" + std::to_string(i); }
  // A draw from `range`, ms.
  static std::chrono::milliseconds Draw(std::mt19937_64& rng, MsRange range);
  // The completion value of a read or write the store rejected (stale
  // fence), null otherwise.
  static nlohmann::json Rejection(const ResourceReply& r, const std::optional<Fence>& fence);

  // The next hold: `client_shares` says whether the client has shared
  // acquires. The default: exclusive, and draws nothing from `rng`.
  virtual HoldPlan PlanHold(std::mt19937_64& rng, bool client_shares) const;
  // The critical section of a hold: the default reads, works, writes what
  // the plan makes of the value (stall before the write with pause_at
  // "write").
  virtual boost::asio::awaitable<void> Critical(Holder& h);
  // What the final read of `key` records (the default: the value, and the
  // orders when selling).
  virtual boost::asio::awaitable<FinalRead> ReadFinal(ResourceClient& reader,
                                                      const std::string& key);

 private:
  struct WorkerState;
  boost::asio::awaitable<void> Worker(WorkloadContext& ctx, int worker, LockClient& client,
                                      ResourceClient& store, WorkerState& state,
                                      std::chrono::steady_clock::time_point start);

  const ResourcePlan plan_;
};

}  // namespace locksmith
