#include "nemesis/kill_nemesis.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <thread>

#include "nemesis/power_journal.h"
#include "nemesis/targets.h"

namespace locksmith {

void KillOptions::Declare(OptionSet& set) {
  set.Text("kill_target", "--kill-target", &target, 256,
           ("nodes each kill hits: " + TargetChoices()).c_str());
  set.Integer("restart_delay_ms", "--restart-delay", &restart_delay_ms, int64_t{0},
              int64_t{3'600'000},
              "ms a killed node stays down, at most until the next fault cycle");
  set.Flag("delayed_restart", "--delayed-restart", &delayed_restart,
           "a killed node stays down at least the longest lease before it restarts");
  set.Flag("power_loss", "--power-loss", &power_loss,
           "a kill is a power loss: the node loses every write it did not fsync");
  set.Require([this]() -> Status {
    if (auto parsed = ParseTarget(target); !parsed)
      return Error{"--kill-target: " + parsed.error()};
    return OkStatus();
  });
}

WindowOps KillWindow(const KillOptions& options) {
  return TimedWindow({"kill", {{"target", options.target}}}, {"restart", nullptr},
                     options.restart_delay_ms);
}

std::string CannotKill(const NemesisContext& context) {
  if (Capability<Killable>(context.service) != nullptr) return "";
  return "backend " + context.service.Backend() + " cannot kill nodes";
}

std::string KillUnfit(const ModuleOptions& options, const NemesisContext& context) {
  if (std::string why = CannotKill(context); !why.empty()) return why;
  const KillOptions& kill = OptionsAs<KillOptions>(options);
  if (std::string why = UnknownTargetRole("--kill-target", kill.target, context.service.Roles(),
                                          context.service.Backend());
      !why.empty()) {
    return why;
  }
  if (!kill.power_loss) return "";
  if (context.cluster == nullptr) return "power loss needs the run's hosts";
  const std::vector<NodeRoleSpec> roles = context.service.Roles();
  std::set<std::string> hosts;
  for (const ServiceNode& node : context.service.Table()) {
    const NodeRoleSpec* role = FindRole(roles, node.role);
    if (role != nullptr && !role->power_loss_unreachable.empty()) {
      return "power loss cannot reach " + role->power_loss_unreachable;
    }
    if (!hosts.insert(node.host).second) {
      return "power loss needs one server per host (backend " + context.service.Backend() +
             " runs two on " + node.host + ")";
    }
  }
  return "";
}

Status InstallPowerShims(const ModuleOptions& options, Cluster& cluster) {
  if (!OptionsAs<KillOptions>(options).power_loss) return OkStatus();
  auto shim = FindPowerShimLibrary();
  if (!shim) return Error{shim.error()};
  for (Host* host : cluster.Hosts()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(host->Directory(), ec)) {
      return Error{"power loss: host " + host->Name() +
                   "'s directory is not on the controller's filesystem (local provider only)"};
    }
    if (Status s = PowerJournal::Install(*host, *shim); !s) return s;
  }
  return OkStatus();
}

Result<std::unique_ptr<Nemesis>> MakeKillNemesis(const ModuleOptions& options,
                                                 const NemesisContext& context) {
  if (std::string why = KillUnfit(options, context); !why.empty()) return Error{why};
  auto* killable = Capability<Killable>(context.service);
  const KillOptions& kill = OptionsAs<KillOptions>(options);
  LockService& service = context.service;
  KillNemesis::AfterKill power_loss;
  if (kill.power_loss) {
    Cluster& cluster = *context.cluster;
    power_loss = [&service, &cluster](const std::string& node) -> Result<nlohmann::json> {
      const ServiceNode* entry = FindServiceNode(service.Table(), node);
      Host* host = entry == nullptr ? nullptr : cluster.FindHost(entry->host);
      if (host == nullptr) return Error{"power loss: no host for node " + node};
      auto undo = PowerJournal::ReplayHost(*host);
      if (!undo) return Error{undo.error()};
      return undo->ToJson();
    };
  }
  return std::unique_ptr<Nemesis>(new KillNemesis(
      *killable, [&service] { return service.Table(); }, context.seed,
      kill.delayed_restart ? context.longest_lease : std::chrono::milliseconds(0),
      Capability<HasNodeProcesses>(context.service), std::move(power_loss)));
}

WindowOps KillWindowOf(const ModuleOptions& options) {
  return KillWindow(OptionsAs<KillOptions>(options));
}

KillNemesis::KillNemesis(Killable& service, std::function<NodeTable()> table, uint64_t seed,
                         std::chrono::milliseconds min_downtime, HasNodeProcesses* processes,
                         AfterKill after_kill)
    : NodeFaultNemesis(std::move(table),
                       {"kill", "restart",
                        [this, &service, after_kill](const std::string& node) -> Status {
                          std::optional<NodeProcess> before;
                          if (processes_ != nullptr) before = processes_->ProcessOf(node);
                          Status s = service.KillNode(node);
                          if (s) down_since_[node] = std::chrono::steady_clock::now();
                          if (s && before) killed_pid_[node] = before->pid;
                          if (!s || !after_kill) return s;
                          auto done = after_kill(node);
                          if (!done) return Error{done.error()};
                          after_kill_done_[node] = std::move(*done);
                          return OkStatus();
                        },
                        [this, &service, min_downtime](const std::string& node) {
                          if (auto it = down_since_.find(node); it != down_since_.end()) {
                            std::this_thread::sleep_until(it->second + min_downtime);
                          }
                          Status s = StartUnlessUp(service, node);
                          if (s) down_since_.erase(node);
                          return s;
                        },
                        [this](const std::string& node, nlohmann::json& seen) {
                          if (auto it = killed_pid_.find(node); it != killed_pid_.end()) {
                            seen["killed_pid"] = it->second;
                          }
                          if (auto it = after_kill_done_.find(node); it != after_kill_done_.end()) {
                            seen["power_loss"] = std::move(it->second);
                            after_kill_done_.erase(it);
                          }
                          return std::optional<bool>();  // the restart tells
                        },
                        [this](const std::string& node, nlohmann::json& seen) {
                          return CameBack(node, seen);
                        }},
                       seed),
      processes_(processes) {}

std::optional<bool> KillNemesis::CameBack(const std::string& node, nlohmann::json& seen) {
  auto killed = killed_pid_.find(node);
  if (processes_ == nullptr || killed == killed_pid_.end()) return std::nullopt;
  seen["killed_pid"] = killed->second;
  const std::optional<NodeProcess> now = processes_->ProcessOf(node);
  killed_pid_.erase(killed);
  if (!now) {
    seen["error"] = "no process after the restart";
    return false;
  }
  seen["pid"] = now->pid;
  const bool alive = now->host != nullptr && now->host->Alive(now->pid);
  if (!alive) seen["error"] = "the new process is not alive";
  return alive && now->pid != seen["killed_pid"].get<int>();
}


const FaultLook kKillLook = {"kill", 10, "#c62828", DescribeNodeFault};

}  // namespace locksmith
