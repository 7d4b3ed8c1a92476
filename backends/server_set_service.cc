#include "backends/server_set_service.h"

#include <algorithm>
#include <cstddef>
#include <set>
#include <thread>
#include <utility>

namespace locksmith {

std::vector<Host*> FirstHosts(const std::vector<Host*>& hosts, int count) {
  const auto n = std::min(hosts.size(), static_cast<size_t>(std::max(0, count)));
  return {hosts.begin(), hosts.begin() + static_cast<std::ptrdiff_t>(n)};
}

NodeTable PrimaryPerHost(const std::vector<Host*>& hosts, int nodes, const std::string& program,
                         int preferred_port) {
  NodeTable table;
  for (Host* host : FirstHosts(hosts, nodes)) {
    table.push_back({host->Name(), kPrimaryRole, host->Name(), program, host->Address(),
                     host->ServicePort(preferred_port)});
  }
  return table;
}

ServerSetService::ServerSetService(Naming naming)
    : backend_(std::move(naming.backend)),
      password_(std::move(naming.password)),
      servers_(std::move(naming.kind), std::move(naming.plural)) {}

ServerProcess& ServerSetService::AddServer(ServerProcessOptions options) {
  table_.push_back(options.info);
  return servers_.Add(std::move(options));
}

std::vector<std::string> ServerSetService::Secrets() const {
  if (password_.empty()) return {};
  return {password_};
}

void ServerSetService::Stop() { servers_.StopAll(); }

Result<std::string> ServerSetService::Primary() {
  const auto primaries = NodesWithRole(table_, kPrimaryRole);
  if (primaries.empty()) return Error{"the " + backend_ + " service has no node"};
  if (primaries.size() > 1) {
    return Error{std::to_string(primaries.size()) + " independent masters: none leads"};
  }
  return primaries.front();
}

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
