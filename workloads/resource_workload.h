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
// the GC pause of the seed article) or before the release ("release").
// Runs on one io_context thread; not thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "workloads/workload.h"

namespace locksmith {

class LockClient;
class OpLog;
class ResourceClient;

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

class ResourceWorkload : public Workload {
 public:
  explicit ResourceWorkload(ResourcePlan plan) : plan_(std::move(plan)) {}

  boost::asio::awaitable<Status> Run(WorkloadContext& ctx) override;
  boost::asio::awaitable<Status> FinalReads(WorkloadContext& ctx) override;
  std::chrono::milliseconds LongestLease() const override {
    return std::chrono::milliseconds(plan_.lease_ms);
  }

 protected:
  const ResourcePlan& plan() const { return plan_; }

 private:
  std::string Key(int i) const { return plan_.prefix + "-" + std::to_string(i); }
  boost::asio::awaitable<void> Worker(WorkloadContext& ctx, int worker, LockClient& client,
                                      ResourceClient& store, std::chrono::steady_clock::time_point start);
  // Read, work, write, under the lock; `fence` when fencing.
  boost::asio::awaitable<void> Update(WorkloadContext& ctx, OpLog& log, LockClient& client,
                                      ResourceClient& store, const std::string& key,
                                      std::optional<int64_t> fence, int64_t& orders,
                                      std::mt19937_64& rng, int worker);

  const ResourcePlan plan_;
};

}  // namespace locksmith
