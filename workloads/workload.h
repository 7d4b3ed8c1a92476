// Workload: drives one lock client per worker on the run's io_context,
// recording every operation (invoke + completion) through an OpRecorder, and
// names the checkers that judge its history. One workload per file,
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

#include "backends/lock_service.h"
#include "checker/checker.h"
#include "checker/op_recorder.h"
#include "checker/option_set.h"
#include "workloads/workload_clock.h"

namespace locksmith {

struct WorkloadOptions {
  int concurrency = 10;             // workers, each with its own client
  int keys = 3;                     // lock keys "lock-0" .. "lock-{keys-1}"
  MsRange hold{10, 100};            // time spent holding an acquired lock
  MsRange backoff{5, 50};           // pause after an acquire that failed
  int64_t lease_ms = 1000;          // lease asked for on every acquire
  double rate = 0;                  // total acquire attempts per second; 0 = unlimited
  uint64_t seed = 0;
};

struct WorkloadContext {
  boost::asio::io_context& io;
  LockService& service;
  OpRecorder& recorder;
  WorkloadOptions options;
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
  // What the workload reads and waits on; tests inject a fake.
  WorkloadClock* clock = &SteadyWorkloadClock();

  bool ShouldStop() const { return failed || interrupted.load(); }
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
  // The checkers that judge this workload's history.
  virtual std::vector<std::unique_ptr<Checker>> Checkers() const = 0;
};

}  // namespace locksmith
