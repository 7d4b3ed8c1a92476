#include "harness/run_modules.h"

#include "backends/backend_registry.h"
#include "backends/redis_lock_token.h"
#include "checker/seed.h"
#include "harness/local_cluster.h"
#include "harness/process_supervisor.h"
#include "nemesis/kill_nemesis.h"
#include "workloads/workload_registry.h"

namespace locksmith {
namespace {

Result<std::unique_ptr<Cluster>> MakeLocalCluster(const RunConfig& config,
                                                  const std::string& nodes_dir) {
  auto nodes = BackendNodeNames(config.backend);
  if (!nodes) return Error{nodes.error()};
  LocalClusterOptions options;
  options.node_names = *nodes;
  options.nodes_dir = nodes_dir;
  options.force_loopback = config.loopback;
  auto cluster = CreateLocalCluster(options);
  if (!cluster) return Error{"cluster: " + cluster.error()};
  return cluster;
}

Result<std::unique_ptr<LockService>> MakeService(const RunConfig& config, Cluster& cluster) {
  BackendOptions options;
  options.name = config.backend;
  options.redis_persistence = config.redis_persistence;
  options.password = "ls-" + LockTokenGenerator(SubSeed(*config.seed, kPasswordSeed)).Next();
  options.client_timeout = std::chrono::milliseconds(config.client_timeout_ms);
  return MakeLockService(options, cluster);
}

Result<std::unique_ptr<Nemesis>> MakeNemesis(const RunConfig& config, LockService& service) {
  std::vector<std::unique_ptr<Nemesis>> parts;
  for (const auto& name : config.nemesis) {
    if (name == "kill") {
      auto* killable = Capability<Killable>(service);
      if (killable == nullptr) return Error{"backend " + config.backend + " cannot kill nodes"};
      parts.push_back(std::make_unique<KillNemesis>(*killable));
    }
  }
  return std::unique_ptr<Nemesis>(new CompositeNemesis(std::move(parts)));
}

std::vector<ScheduledFault> MakeSchedule(const RunConfig& config, LockService& service) {
  ScheduleOptions schedule;
  schedule.faults = config.nemesis;
  schedule.nodes = service.Nodes();
  schedule.interval_s = config.nemesis_interval_s;
  schedule.restart_delay_ms = config.restart_delay_ms;
  schedule.time_limit_s = config.time_limit_s;
  schedule.seed = SubSeed(*config.seed, kScheduleSeed);
  return BuildSchedule(schedule);
}

}  // namespace

const RunModules& DefaultRunModules() {
  static const RunModules kModules{
      MakeLocalCluster,
      MakeService,
      [](const RunConfig& config) { return MakeWorkload(config.workload); },
      MakeNemesis,
      MakeSchedule,
      [] { KillAllSpawnedAsyncSignalSafe(); },
  };
  return kModules;
}

}  // namespace locksmith
