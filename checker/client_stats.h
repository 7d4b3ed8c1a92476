// ClientStatsChecker: sums what lock clients count about themselves. A
// client that keeps counters (LockClient::Counters: watch notifications, ...)
// has its worker record them once, at its end, as an ok "client-stats" op
// whose value maps counter names to integers. The checker adds them up over
// all clients and divides each by the ok releases, so results.json shows,
// e.g., the watch notifications per release (the herd effect of a lock
// recipe). Never judges: always valid. One pass, memory of the counter names
// only. Stateless; Check and Start are thread-safe.
#pragma once

#include "checker/checker.h"

namespace locksmith {

class ClientStatsChecker : public Checker {
 public:
  std::string Name() const override { return "client-stats"; }
  // stats: {"clients": N, "releases": R, "<counter>": sum, ...,
  //         "per_release": {"<counter>": sum / R, ...}} (per_release only when R > 0).
  std::unique_ptr<CheckPass> Start() const override;
};

}  // namespace locksmith
