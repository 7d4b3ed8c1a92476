#include "workloads/inventory_workload.h"

#include "checker/inventory_checker.h"

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
  return WithLockCheckers(std::move(checkers));
}

}  // namespace locksmith
