// PerfStatsChecker: op counts by type and by f, latency quantiles per f
// (invoke to completion, ok / fail / info separately) and throughput. It
// never invalidates a history. One pass; memory follows the processes and
// the f's, not the history (LatencyHistogram: quantiles exact up to 65536
// latencies per f and outcome, within 0.4% beyond, count and max always
// exact). Stateless; Check and Start are thread-safe.
#pragma once

#include "checker/checker.h"

namespace locksmith {

class PerfStatsChecker : public Checker {
 public:
  std::string Name() const override { return "perf"; }
  std::unique_ptr<CheckPass> Start() const override;
};

}  // namespace locksmith
