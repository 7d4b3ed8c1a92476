#include "backends/leader_cache.h"

namespace locksmith {

void LeaderCache::Record(const std::string& leader) {
  std::lock_guard lock(mu_);
  leader_ = leader;
  seen_ = std::chrono::steady_clock::now();
}

void LeaderCache::Forget(const std::string& node) {
  std::lock_guard lock(mu_);
  if (node.empty() || leader_ == node) leader_.clear();
}

std::string LeaderCache::Leader(const std::function<Result<std::string>()>& probe) const {
  {
    std::lock_guard lock(mu_);
    if (seen_ && std::chrono::steady_clock::now() - *seen_ <= fresh_for_) return leader_;
  }
  auto leading = probe();
  return leading ? *leading : "";
}

NodeTable WithPrimary(NodeTable table, const std::string& leader) {
  for (auto& node : table) {
    if (node.name == leader) node.role = kPrimaryRole;
  }
  return table;
}

}  // namespace locksmith
