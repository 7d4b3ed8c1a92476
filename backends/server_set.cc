#include "backends/server_set.h"

namespace locksmith {

ServerSet::ServerSet(std::string kind, std::string plural)
    : kind_(std::move(kind)), plural_(std::move(plural)) {}

ServerProcess& ServerSet::Add(ServerProcessOptions options) {
  servers_.push_back(std::make_unique<ServerProcess>(std::move(options)));
  return *servers_.back();
}

ServerProcess* ServerSet::Find(const std::string& name) const {
  for (const auto& server : servers_) {
    if (server->name() == name) return server.get();
  }
  return nullptr;
}

Result<size_t> ServerSet::IndexOf(const std::string& name) const {
  for (size_t i = 0; i < servers_.size(); ++i) {
    if (servers_[i]->name() == name) return i;
  }
  std::vector<std::string> names;
  for (const auto& server : servers_) names.push_back(server->name());
  return Error{"no " + kind_ + " " + name + " (" + plural_ + ": " + JoinNames(names) + ")"};
}

Result<ServerProcess*> ServerSet::FindOrError(const std::string& name) const {
  auto index = IndexOf(name);
  if (!index) return Error{index.error()};
  return servers_[*index].get();
}

Host* ServerSet::HostOf(const std::string& name) const {
  ServerProcess* server = Find(name);
  return server == nullptr ? nullptr : server->host();
}

Status ServerSet::Kill(const std::string& name) const {
  auto server = FindOrError(name);
  if (!server) return Error{server.error()};
  return (*server)->Kill();
}

Status ServerSet::Pause(const std::string& name) const {
  auto server = FindOrError(name);
  if (!server) return Error{server.error()};
  return (*server)->Pause();
}

Status ServerSet::Resume(const std::string& name) const {
  auto server = FindOrError(name);
  if (!server) return Error{server.error()};
  return (*server)->Resume();
}

bool ServerSet::IsUp(const std::string& name) const {
  ServerProcess* server = Find(name);
  return server != nullptr && server->IsUp();
}

std::optional<NodeProcess> ServerSet::ProcessOf(const std::string& name) const {
  ServerProcess* server = Find(name);
  if (server == nullptr) return std::nullopt;
  const std::optional<int> pid = server->Pid();
  if (!pid) return std::nullopt;
  return NodeProcess{server->host(), *pid};
}

void ServerSet::StopAll() const {
  for (auto it = servers_.rbegin(); it != servers_.rend(); ++it) (*it)->Stop();
}

Status ServerSet::SpawnAllThenAwait(const std::function<ServerLaunch(size_t)>& launch_of,
                                    const std::function<ReadinessProbe(size_t)>& probe_of,
                                    std::chrono::steady_clock::time_point give_up) const {
  std::vector<int> pids;
  for (size_t i = 0; i < servers_.size(); ++i) {
    auto spawned = servers_[i]->Spawn(launch_of(i));
    if (!spawned) return Error{spawned.error()};
    pids.push_back(*spawned);
  }
  for (size_t i = 0; i < servers_.size(); ++i) {
    if (Status s = servers_[i]->AwaitReady(pids[i], give_up, probe_of(i)); !s) return s;
  }
  return OkStatus();
}

}  // namespace locksmith
