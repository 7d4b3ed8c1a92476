// KillNemesis: "kill" SIGKILLs the target nodes' servers, "restart" starts
// them again (what they remember depends on the backend's persistence).
// With delayed_restart a node stays down at least the workload's longest
// lease before it restarts (antirez's answer to restarts without
// persistence), on the schedule and in Teardown alike. Where the service
// tells its nodes' processes (HasNodeProcesses), the kill records the pid it
// killed and the restart is observed when the node came back with a new pid
// ("checks": {"n1": {"killed_pid", "pid"}}). With power_loss a kill is a
// power loss of the node's host: the power shim (nemesis/power_shim.cc) runs
// in every server, and right after the SIGKILL the node's unsynced writes
// are undone (PowerJournal::ReplayHost; what was undone is in the kill's
// "checks": {"n1": {"power_loss": {...}}}). Otherwise a NodeFaultNemesis:
// targets, completion values and Teardown are as there.
// Used from the nemesis thread; Teardown afterwards from the run thread.
#pragma once

#include <chrono>
#include <map>
#include <string>

#include "backends/lock_service.h"
#include "base/option_set.h"
#include "nemesis/nemesis_registry.h"
#include "nemesis/node_fault_nemesis.h"
#include "nemesis/schedule.h"

namespace locksmith {

// The kill family's options.
struct KillOptions {
  std::string target = "one";      // which nodes each kill hits (nemesis/targets.h)
  int64_t restart_delay_ms = 100;  // downtime before "restart"
  bool delayed_restart = false;    // downtime at least the longest lease
  bool power_loss = false;         // a kill also loses what the node did not fsync

  void Declare(OptionSet& set);
};

// A kill of the target at the start, and its restart after the restart
// delay, but before the family's next window.
WindowOps KillWindow(const KillOptions& options);

// The registry's hooks (nemesis_registry.cc), from OptionsOf<KillOptions>.
// Unfit (and an error to make) when the backend cannot kill nodes.
Result<std::unique_ptr<Nemesis>> MakeKillNemesis(const ModuleOptions& options,
                                                 const NemesisContext& context);
// Why the backend cannot kill nodes (it is not Killable), empty when it can.
std::string CannotKill(const NemesisContext& context);
// Unfit also when power_loss is asked of a service with two servers on one
// host (a power loss would hit both), of etcd (the shim cannot see its
// writes) or without the run's hosts.
std::string KillUnfit(const ModuleOptions& options, const NemesisContext& context);
WindowOps KillWindowOf(const ModuleOptions& options);
// With power_loss: the power shim in every host's spawn environment.
Status InstallPowerShims(const ModuleOptions& options, Cluster& cluster);
// How the reports show a kill (nemesis/fault_look.h): the nodes it hit.
extern const FaultLook kKillLook;

class KillNemesis : public NodeFaultNemesis {
 public:
  // `min_downtime`: how long a node stays down at least (0: no minimum).
  // `processes`: the service's process table, to observe restarts (may be
  // null: nothing is observed). `after_kill`: run on a node right after its
  // SIGKILL (the power loss's undo), what it did goes into the op's checks
  // under "power_loss"; may be empty.
  using AfterKill = std::function<Result<nlohmann::json>(const std::string& node)>;
  explicit KillNemesis(Killable& service, std::function<NodeTable()> table = {},
                       uint64_t seed = 0,
                       std::chrono::milliseconds min_downtime = std::chrono::milliseconds(0),
                       HasNodeProcesses* processes = nullptr, AfterKill after_kill = {});

 private:
  // The check after a restart: a new pid, alive.
  std::optional<bool> CameBack(const std::string& node, nlohmann::json& seen);

  HasNodeProcesses* const processes_;
  std::map<std::string, std::chrono::steady_clock::time_point> down_since_;
  std::map<std::string, int> killed_pid_;  // the pid each node had when it was killed
  std::map<std::string, nlohmann::json> after_kill_done_;  // what after_kill did, per node
};

}  // namespace locksmith
