// The `inventory` workload: a flash sale (a lock-protected order). `items`
// items with `stock` units each; `concurrency` buyers each loop: acquire the
// item's lock, read its stock, work (`work` ms), and when stock > 0 write
// stock - 1 and record an order id, release. At the end, with faults healed,
// the final reads of every item's stock and orders. Judged by the inventory
// checker (oversold, lost updates, negative stock), the fencing checker and
// perf stats. See ResourceWorkload. Not thread-safe.
#pragma once

#include "checker/stuck_lock_checker.h"
#include "workloads/resource_workload.h"

namespace locksmith {

// Config keys "items", "stock", "work", "backoff", "lease_ms", "pause_at",
// "stuck_leases".
struct InventoryOptions : ResourceHoldOptions {
  int items = 1;
  int64_t stock = 100;

  void Declare(OptionSet& set);
};

class InventoryWorkload : public ResourceWorkload {
 public:
  using Options = InventoryOptions;
  explicit InventoryWorkload(InventoryOptions options = {});

  std::string Name() const override { return "inventory"; }
  std::vector<std::unique_ptr<Checker>> Checkers() const override;
};

}  // namespace locksmith
