#include "workloads/inventory_workload.h"

#include "checker/client_stats.h"
#include "checker/fencing_checker.h"
#include "checker/foreign_release_checker.h"
#include "checker/inventory_checker.h"
#include "checker/perf_stats.h"

namespace locksmith {

void InventoryOptions::Declare(OptionSet& set) {
  set.Integer("items", "--items", &items, 1, 100'000, "items on sale: item-0 ..")
      .Integer("stock", "--stock", &stock, int64_t{0}, int64_t{1'000'000'000},
               "units of each item at the start");
  DeclareHold(set, "ms a buyer works between reading the stock and writing it, MIN-MAX or N",
              "where a holder takes a client-pause stall: before its write or its release");
}

InventoryWorkload::InventoryWorkload(InventoryOptions o)
    : ResourceWorkload(o.Plan("item", o.items, o.stock, /*sells=*/true)) {}

std::vector<std::unique_ptr<Checker>> InventoryWorkload::Checkers() const {
  std::vector<std::unique_ptr<Checker>> checkers;
  checkers.push_back(std::make_unique<InventoryChecker>(plan().initial));
  checkers.push_back(std::make_unique<FencingChecker>());
  checkers.push_back(std::make_unique<ForeignReleaseChecker>());
  checkers.push_back(std::make_unique<StuckLockChecker>(plan().stuck_leases));
  checkers.push_back(std::make_unique<PerfStatsChecker>());
  checkers.push_back(std::make_unique<ClientStatsChecker>());
  return checkers;
}

}  // namespace locksmith
