// FencingChecker: the resource never accepted a write with a fence lower
// than one it had already accepted. An accepted op is a `read` or `write`
// with a "fence" in its invoke that completed ok (a fenced read registers
// its fence on the resource too); a violation is an accepted write whose
// invoke came after an accepted op of the same key with a higher fence had
// completed. Named: both ops. Also counts the rejections (fail with
// "rejected"). A history without fences is valid with nothing checked.
// One pass; stateless; thread-safe.
#pragma once

#include "checker/checker.h"

namespace locksmith {

class FencingChecker : public Checker {
 public:
  std::string Name() const override { return "fencing"; }
  CheckResult Check(const History& history) const override;
};

}  // namespace locksmith
