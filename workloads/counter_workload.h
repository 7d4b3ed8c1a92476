// The `counter` workload: `counters` counters starting at 0; each worker
// loops: acquire the counter's lock, read it, work (`work` ms), write read +
// 1, release. At the end, with faults healed, the final read of every
// counter. Judged by the counter checker (lost increments, with bounds for
// info writes), the fencing checker and perf stats. See ResourceWorkload.
// Not thread-safe.
#pragma once

#include "checker/stuck_lock_checker.h"
#include "workloads/resource_workload.h"

namespace locksmith {

// Config keys "counters", "work", "backoff", "lease_ms", "pause_at",
// "stuck_leases".
struct CounterOptions : ResourceHoldOptions {
  int counters = 1;

  void Declare(OptionSet& set);
};

class CounterWorkload : public ResourceWorkload {
 public:
  using Options = CounterOptions;
  explicit CounterWorkload(CounterOptions options = {});

  std::string Name() const override { return "counter"; }
  std::vector<std::unique_ptr<Checker>> Checkers() const override;
};

}  // namespace locksmith
