#include "checker/leased_lock_checker.h"

namespace locksmith {

History LeasedLockChecker::ExpireFailedReleases(const History& history) {
  History rewritten = history;
  for (Op& op : rewritten) {
    const bool release = op.f == "release" || op.f == "release-shared";
    if (op.is_client() && release && op.type == OpType::kFail) {
      op.type = OpType::kInfo;
      op.error = "release failed (" + op.error + "); the lease expires at an unknown time";
    }
  }
  return rewritten;
}

CheckResult LeasedLockChecker::Check(const History& history) const {
  CheckResult result = inner_->Check(ExpireFailedReleases(history));
  result.stats["failed_releases_as_expiry"] = true;
  return result;
}

}  // namespace locksmith
