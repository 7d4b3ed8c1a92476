// LeasedLockChecker: adapts a lock history to the sequential lock models,
// which know nothing of leases. A lease-based lock frees itself when its
// lease expires, so a release that failed (never sent, or "not ours any
// more") does not leave the lock held forever: the lock becomes free at some
// unknown time. The checker rewrites such releases as `info` ("may take
// effect at any time after its invoke, or never") and hands the history to
// the wrapped checker. This is a relaxation: it can hide nothing the
// intervals show (a holder still working when another acquires stays
// unlinearizable), and it removes the false alarm of a lock that expired
// after a failed release and was rightly granted again.
// Stateless; Check is thread-safe if the wrapped checker's is.
#pragma once

#include <memory>

#include "checker/checker.h"

namespace locksmith {

class LeasedLockChecker : public Checker {
 public:
  explicit LeasedLockChecker(std::unique_ptr<Checker> inner) : inner_(std::move(inner)) {}
  std::string Name() const override { return inner_->Name(); }
  CheckResult Check(const History& history) const override;

  // The rewrite itself (pure; exposed for tests).
  static History ExpireFailedReleases(const History& history);

 private:
  std::unique_ptr<Checker> inner_;
};

}  // namespace locksmith
