#include "workloads/counter_workload.h"

#include "checker/counter_checker.h"

namespace locksmith {

void CounterOptions::Declare(OptionSet& set) {
  set.Integer("counters", "--counters", &counters, 1, 100'000, "counters: counter-0 ..");
  DeclareHold(set, "ms a worker works between reading the counter and writing it, MIN-MAX or N",
              "where a holder takes a client-pause stall: before its write or its release");
}

CounterWorkload::CounterWorkload(CounterOptions o)
    : ResourceWorkload(o.Plan("counter", o.counters, 0, /*sells=*/false)) {}

std::vector<std::unique_ptr<Checker>> CounterWorkload::Checkers() const {
  std::vector<std::unique_ptr<Checker>> checkers;
  checkers.push_back(std::make_unique<CounterChecker>());
  return WithLockCheckers(std::move(checkers));
}

}  // namespace locksmith
