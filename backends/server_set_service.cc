#include "backends/server_set_service.h"

#include <set>
#include <thread>
#include <utility>

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

Status ServerSetService::NeedHosts(const std::string& backend, int hosts, size_t servers) const {
  if (servers_.size() >= servers) return OkStatus();
  std::set<const Host*> used;
  for (const auto& server : servers_.all()) used.insert(server->host());
  return Error{"the " + backend + " backend needs " + std::to_string(hosts) +
               (hosts == 1 ? " host" : " hosts") + ", the cluster has " +
               (used.empty() ? std::string("none") : std::to_string(used.size()))};
}

Status ServerSetService::NeedPorts(
    const std::function<std::vector<int>(size_t)>& more_ports) const {
  for (size_t i = 0; i < servers_.size(); ++i) {
    std::vector<int> ports{servers_.all()[i]->info().port};
    if (more_ports) {
      for (int port : more_ports(i)) ports.push_back(port);
    }
    for (int port : ports) {
      if (port == 0) return Error{servers_.all()[i]->name() + ": its host has no free port left"};
    }
  }
  return OkStatus();
}

Status ServerSetService::PollUntil(const std::function<Status()>& ask,
                                   std::chrono::steady_clock::time_point give_up,
                                   std::chrono::milliseconds poll) {
  while (true) {
    Status answer = ask();
    if (answer || std::chrono::steady_clock::now() >= give_up) return answer;
    std::this_thread::sleep_for(poll);
  }
}

Status ServerSetService::StartServers(const StartPlan& plan) {
  if (Status s = NeedHosts(plan.backend, plan.hosts, static_cast<size_t>(plan.hosts)); !s) {
    return s;
  }
  if (Status s = NeedPorts(plan.more_ports); !s) return s;
  const auto began = std::chrono::steady_clock::now();
  if (plan.prepare) {
    if (Status s = plan.prepare(); !s) return s;
  }
  const auto give_up = std::chrono::steady_clock::now() + plan.ready_timeout;
  if (Status s = servers_.SpawnAllThenAwait(plan.launch_of, plan.probe_of, give_up); !s) return s;
  if (plan.leader) {
    auto leads = [&plan]() -> Status {
      auto leader = plan.leader();
      return leader ? OkStatus() : Status(Error{leader.error()});
    };
    if (Status s = PollUntil(leads, give_up, plan.leader_poll); !s) {
      return Error{plan.group + " elected no leader within " +
                   std::to_string(plan.ready_timeout.count()) + " ms: " + s.error()};
    }
  }
  ready_after_ms_ = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::steady_clock::now() - began)
                        .count();
  return OkStatus();
}

}  // namespace locksmith
