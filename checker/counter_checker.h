// CounterChecker: judges the `counter` workload. Per counter key (starting
// at 0), each acknowledged `write` of read + 1 is one increment: the final
// read must lie between the acknowledged increments and those plus the ones
// that ended info. Below: lost-increment (with the pairs of acknowledged
// writes that read the same value, each with its hold, read, write and
// release); above: unexpected-increment. A key without a final read is
// unknown. Stateless; thread-safe.
#pragma once

#include "checker/checker.h"

namespace locksmith {

class CounterChecker : public WholeHistoryChecker {
 public:
  std::string Name() const override { return "counter"; }
  CheckResult CheckWhole(const History& history) const override;
};

}  // namespace locksmith
