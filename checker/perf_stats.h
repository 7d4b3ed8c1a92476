// PerfStatsChecker: op counts by type and by f, latency quantiles per f
// (invoke to completion, ok / fail / info separately) and throughput. It
// never invalidates a history. Stateless; Check is thread-safe.
#pragma once

#include "checker/checker.h"

namespace locksmith {

class PerfStatsChecker : public Checker {
 public:
  std::string Name() const override { return "perf"; }
  CheckResult Check(const History& history) const override;
};

}  // namespace locksmith
