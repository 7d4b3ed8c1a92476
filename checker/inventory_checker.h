// InventoryChecker: judges the `inventory` workload's flash sale. Per item
// (a key with `write` or `final` ops), with `initial` units at the start:
//   oversold        more orders than units: the final read's orders, or the
//                   acknowledged sales when there is no final read, > initial
//   lost-update     the final stock is not initial - sales, where sales lie
//                   between the acknowledged (ok) writes and those plus the
//                   ones that ended info (FoundationDB's Inventory workload
//                   keeps min and max expected counts the same way)
//   negative-stock  a read, a write or the final read below 0
// Every anomaly names the ops that prove it: for oversold and lost-update,
// pairs of buyers whose acknowledged writes came from reads of the same
// stock (each with its hold, read, write and release). An item without a
// final read (the run was interrupted) is judged on what there is: unknown
// unless something already proves an anomaly. One pass (ResourceUpdates:
// memory per item and process, plus a compact record per distinct stock an
// acknowledged sale read while the pairs are being looked for, and one op
// mark per negative stock seen); stateless; thread-safe.
#pragma once

#include <cstdint>

#include "checker/checker.h"

namespace locksmith {

class InventoryChecker : public Checker {
 public:
  explicit InventoryChecker(int64_t initial) : initial_(initial) {}
  std::string Name() const override { return "inventory"; }
  std::unique_ptr<CheckPass> Start() const override;

 private:
  const int64_t initial_;
};

}  // namespace locksmith
