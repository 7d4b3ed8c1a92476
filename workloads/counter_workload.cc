#include "workloads/counter_workload.h"

#include "checker/client_stats.h"
#include "checker/counter_checker.h"
#include "checker/fencing_checker.h"
#include "checker/perf_stats.h"

namespace locksmith {

void CounterOptions::Declare(OptionSet& set) {
  set.Integer("counters", "--counters", &counters, 1, 100'000, "counters: counter-0 ..")
      .Range("work", "--work", &work, 0, 3'600'000,
             "ms a worker works between reading the counter and writing it, MIN-MAX or N")
      .Range("backoff", "--backoff", &backoff, 0, 3'600'000,
             "ms a worker waits after a failed acquire, MIN-MAX or N")
      .Integer("lease_ms", "--lease", &lease_ms, int64_t{1}, int64_t{86'400'000},
               "lock lease (TTL) asked for on every acquire, ms")
      .Choice("pause_at", "--pause-at", &pause_at, PausePoints(),
              "where a holder takes a client-pause stall: before its write or its release");
  DeclareStuckLeases(set, &stuck_leases);
}

CounterWorkload::CounterWorkload(CounterOptions o)
    : ResourceWorkload(ResourcePlan{"counter", o.counters, 0, /*sells=*/false, o.work, o.backoff,
                                    o.lease_ms, o.pause_at, o.stuck_leases}) {}

std::vector<std::unique_ptr<Checker>> CounterWorkload::Checkers() const {
  std::vector<std::unique_ptr<Checker>> checkers;
  checkers.push_back(std::make_unique<CounterChecker>());
  checkers.push_back(std::make_unique<FencingChecker>());
  checkers.push_back(std::make_unique<StuckLockChecker>(plan().stuck_leases));
  checkers.push_back(std::make_unique<PerfStatsChecker>());
  checkers.push_back(std::make_unique<ClientStatsChecker>());
  return checkers;
}

}  // namespace locksmith
