// CounterChecker: judges the `counter` workload. Per counter key (starting
// at 0), each acknowledged `write` of read + 1 is one increment: the final
// read must lie between the acknowledged increments and those plus the ones
// that ended info. Below: lost-increment (with the pairs of acknowledged
// writes that read the same value, each with its hold, read, write and
// release); above: unexpected-increment. A key without a final read is
// unknown. One pass (ResourceUpdates: memory per key and process, plus a
// compact record per distinct value an acknowledged write read while the
// pairs are being looked for); stateless; thread-safe.
#pragma once

#include "checker/checker.h"

namespace locksmith {

class CounterChecker : public Checker {
 public:
  std::string Name() const override { return "counter"; }
  std::unique_ptr<CheckPass> Start() const override;
};

}  // namespace locksmith
