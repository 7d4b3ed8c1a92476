// Workload: drives one lock client per worker on the run's io_context,
// recording every operation (invoke + completion) through an OpRecorder,
// reads the protected resource's final state after the heal, and names the
// checkers that judge its history, built from its own options (so `check
// RUN_DIR` judges with the run's parameters). One workload per file,
// registered by name in workload_registry.cc. A workload object is used by
// one run on one thread (the io_context's); it is not thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <nlohmann/json.hpp>

#include "backends/client_faults.h"
#include "backends/lock_service.h"
#include "base/option_set.h"
#include "base/seed.h"
#include "checker/checker.h"
#include "history/op_recorder.h"
#include "workloads/workload_clock.h"

namespace locksmith {

class ResourceStore;

// What every workload is run with (RunConfig's common keys); a workload's
// own options (keys, hold, lease, ...) are its constructor's, declared next
// to it and built by the registry.
struct WorkloadOptions {
  int concurrency = 10;             // workers, each with its own client
  double rate = 0;                  // total op attempts per second; 0 = unlimited
  uint64_t seed = 0;
  // --fencing on: the resource checks every acquire's fence (workloads with a
  // protected resource).
  bool fencing = false;
};

struct WorkloadContext {
  boost::asio::io_context& io;
  LockService& service;
  OpRecorder& recorder;
  WorkloadOptions options;
  // When the workers stop. The run moves it to the time limit past the
  // moment every client is connected (on_connected), before the first op.
  std::chrono::steady_clock::time_point deadline;
  // Set on SIGINT/SIGTERM: workers finish the op in flight, release what
  // they hold at once, and stop.
  const std::atomic<bool>& interrupted;
  // Called once every client is connected, before the first op: the run
  // starts the fault schedule here, so no fault lands on a client still
  // connecting. May be empty.
  std::function<void()> on_connected = {};
  // Set when a worker failed (threw): the others stop as on an interrupt,
  // so the run ends with the error instead of running to its deadline.
  bool failed = false;
  // The run's client-side fault families (client-pause, client-crash, ...):
  // every worker asks them at each point it passes (workloads/
  // worker_fault_points.h); null when the run has none.
  const ClientFaults* client_faults = nullptr;
  // The address client `index`'s sockets bind to (Cluster::ClientAddress);
  // empty, or no function: the kernel's choice.
  std::function<std::string(int index)> client_address = {};
  // Makes the lock client of a slot in place of the service's own (an
  // external program: --client exec:...); no function: the service's.
  std::function<std::unique_ptr<LockClient>(const ClientSlot& slot)> new_client = {};
  // The protected resource's server (workloads that protect one: the run
  // starts it on its own host); null otherwise.
  ResourceStore* resource = nullptr;
  // What the workload reads and waits on; tests inject a fake.
  WorkloadClock* clock = &SteadyWorkloadClock();

  bool ShouldStop() const { return failed || interrupted.load(); }
  // The slot of client `index`: its seed (from the workload's seed) and its
  // source address.
  ClientSlot Slot(int index) const {
    return {index, SubSeed(options.seed, static_cast<uint64_t>(index)),
            client_address ? client_address(index) : std::string()};
  }
  // Worker `index`'s lock client (new_client's, or the service's own).
  std::unique_ptr<LockClient> NewClient(int index) const {
    if (new_client) return new_client(Slot(index));
    return service.NewClient(io.get_executor(), Slot(index));
  }
  std::chrono::steady_clock::time_point Now() const { return clock->Now(); }
};

class Workload {
 public:
  virtual ~Workload() = default;
  virtual std::string Name() const = 0;
  // Runs every worker until the deadline (or an interrupt) and returns when
  // all have stopped. An error means the workload could not start (e.g. no
  // client could connect); ops recorded so far stay valid.
  virtual boost::asio::awaitable<Status> Run(WorkloadContext& ctx) = 0;
  // After the workload and the heal, while the servers are still up: reads
  // the protected resource's final state (stock left, counter value) with
  // clients of its own, recording each read like any other op. Runs on the
  // io_context like Run, until ctx.deadline; the run skips it when the
  // workload failed or was interrupted. The default reads nothing.
  virtual boost::asio::awaitable<Status> FinalReads(WorkloadContext& ctx) {
    (void)ctx;
    co_return OkStatus();
  }
  // Why this workload takes shared (read) acquires, as the setting a user
  // gave ("--read-fraction 0.3"), or "" when it takes none: the run refuses
  // a client without shared locks (LockClient::SupportsShared) before it
  // starts.
  virtual std::string SharedAcquiresBy() const { return ""; }
  // The longest lease any of its clients asks for (0: none): a delayed
  // restart keeps a killed node down at least this long.
  virtual std::chrono::milliseconds LongestLease() const { return std::chrono::milliseconds(0); }
  // The longest one acquire may wait for the lock beyond a client call's
  // deadline (--acquire-wait-ms; 0: one call): with the client timeout, what
  // the run's watchdog grants a worker to stop after the time limit.
  virtual std::chrono::milliseconds LongestAcquireWait() const {
    return std::chrono::milliseconds(0);
  }
  // The checkers that judge this workload's history. A run's checkers come
  // from a workload built from its config.json, both when it ends and when
  // `locksmith check` judges it again, so a checker's parameters (initial
  // stock, fencing) are the run's own.
  virtual std::vector<std::unique_ptr<Checker>> Checkers() const = 0;
};

}  // namespace locksmith
