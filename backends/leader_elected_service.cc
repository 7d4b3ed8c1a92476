#include "backends/leader_elected_service.h"

namespace locksmith {

NodeTable LeaderElectedService::Table() const {
  return WithPrimary(table_, leader_.Leader([this] { return LeaderNow(); }));
}

void LeaderElectedService::Stop() {
  ServerSetService::Stop();
  leader_.Forget();
}

Status LeaderElectedService::KillNode(const std::string& node) {
  Status s = ServerSetService::KillNode(node);
  leader_.Forget(node);
  return s;
}

Result<std::string> LeaderElectedService::LeaderNow() const {
  auto leader = AskLeader();
  leader_.Record(leader ? *leader : "");
  return leader;
}

}  // namespace locksmith
