#include "backends/server_set_service.h"

#include <utility>

#include "backends/leader_cache.h"

namespace locksmith {

ServerSetService::ServerSetService(std::string kind, std::string plural)
    : servers_(std::move(kind), std::move(plural)) {}

Status ServerSetService::KillNode(const std::string& node) { return servers_.Kill(node); }

Status ServerSetService::StartNode(const std::string& node) {
  auto index = servers_.IndexOf(node);
  if (!index) return Error{index.error()};
  return Relaunch(*index);
}

bool ServerSetService::IsUp(const std::string& node) { return servers_.IsUp(node); }

Status ServerSetService::PauseNode(const std::string& node) { return servers_.Pause(node); }

Status ServerSetService::ResumeNode(const std::string& node) { return servers_.Resume(node); }

std::optional<NodeProcess> ServerSetService::ProcessOf(const std::string& node) {
  return servers_.ProcessOf(node);
}

Status ServerSetService::NeedHosts(const std::string& backend, int nodes) const {
  if (servers_.size() >= static_cast<size_t>(nodes)) return OkStatus();
  return Error{"the " + backend + " backend needs " + std::to_string(nodes) +
               " hosts, the cluster has " + std::to_string(servers_.size())};
}

Status ServerSetService::SpawnAllThenAwaitLeader(
    const std::function<ServerLaunch(size_t)>& launch_of,
    const std::function<ReadinessProbe(size_t)>& probe_of,
    const std::function<Result<std::string>()>& leader, std::chrono::milliseconds poll,
    const std::string& group, std::chrono::milliseconds ready_timeout,
    std::atomic<int64_t>& ready_after_ms) {
  const auto began = std::chrono::steady_clock::now();
  const auto give_up = began + ready_timeout;
  if (Status s = servers_.SpawnAllThenAwait(launch_of, probe_of, give_up); !s) return s;
  if (Status s = AwaitLeader(leader, give_up, poll, group, ready_timeout); !s) return s;
  ready_after_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::steady_clock::now() - began)
                       .count();
  return OkStatus();
}

}  // namespace locksmith
