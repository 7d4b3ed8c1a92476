#include "harness/run_modules.h"

#include "backends/backend_registry.h"
#include "base/seed.h"
#include "cluster/debian_packages.h"
#include "cluster/local_cluster.h"
#include "cluster/process_supervisor.h"
#include "cluster/ssh_cluster.h"
#include "nemesis/nemesis_registry.h"
#include "workloads/resource_store.h"
#include "workloads/workload_registry.h"

namespace locksmith {
namespace {

Result<std::unique_ptr<Cluster>> MakeSshCluster(const RunConfig& config,
                                                const std::vector<std::string>& host_names,
                                                const std::string& nodes_dir) {
  SshClusterOptions options;
  options.host_names = host_names;
  options.nodes_dir = nodes_dir;
  options.packages = SshProviderPackages();
  auto backend_packages = BackendPackages(config.backend);
  if (!backend_packages) return Error{backend_packages.error()};
  options.packages.insert(options.packages.end(), backend_packages->begin(),
                          backend_packages->end());
  options.ssh = {config.ssh_user, config.ssh_key, config.ssh_port, config.ssh_known_hosts};
  if (!config.nodes_file.empty()) {
    auto nodes = ReadNodesFile(config.nodes_file);
    if (!nodes) return Error{"cluster: " + nodes.error()};
    options.nodes = *nodes;
  } else {
    options.nodes = config.nodes;
  }
  auto cluster = CreateSshCluster(options);
  if (!cluster) return Error{"cluster: " + cluster.error()};
  return cluster;
}

Result<std::unique_ptr<Cluster>> MakeCluster(const RunConfig& config,
                                             const std::string& nodes_dir) {
  if (!config.backend_options) return Error{FindBackend(config.backend).error()};
  auto nodes = BackendNodeNames(config.backend, *config.backend_options);
  if (!nodes) return Error{nodes.error()};
  LocalClusterOptions options;
  options.node_names = *nodes;
  // A workload's protected resource lives on a host of its own, outside
  // the service's node table, so no fault target ever resolves to it.
  if (WorkloadUsesResourceStore(config.workload)) options.node_names.push_back(kResourceHost);
  if (config.provider == "ssh") return MakeSshCluster(config, options.node_names, nodes_dir);
  // The main job's setup installs only its own backends' servers: say which
  // package a run here lacks rather than fail to start a server.
  if (auto packages = BackendPackages(config.backend); packages) {
    if (auto missing = MissingDebianPackages(*packages); !missing.empty()) {
      return Error{"backend " + config.backend + " needs Debian's " + JoinNames(missing) +
                   ", not installed here (scripts/setup.sh --servers installs every backend's "
                   "servers)"};
    }
  }
  options.nodes_dir = nodes_dir;
  options.force_loopback = config.loopback;
  auto cluster = CreateLocalCluster(options);
  if (!cluster) return Error{"cluster: " + cluster.error()};
  return cluster;
}

Result<std::unique_ptr<LockService>> MakeService(const RunConfig& config, Cluster& cluster) {
  // Before the servers exist: what a fault family sets on the hosts (the
  // clock shim) must be in place when they are spawned.
  if (Status s = PrepareNemesisHosts(config.ChosenNemeses(), cluster); !s) return Error{s.error()};
  auto client = ResolveClient(config.backend, config.client);
  if (!client) return Error{client.error()};
  const BackendContext context{cluster, SubSeed(*config.seed, kBackendSeed),
                               std::chrono::milliseconds(config.client_timeout_ms), *client,
                               config.fencing == "on"};
  return MakeLockService(config.backend, *config.backend_options, context);
}

Result<std::unique_ptr<Workload>> MakeConfiguredWorkload(const RunConfig& config) {
  if (!config.workload_options) return Error{FindWorkload(config.workload).error()};
  return MakeWorkload(config.workload, *config.workload_options);
}

Result<std::unique_ptr<Nemesis>> MakeConfiguredNemesis(const RunConfig& config,
                                                       const NemesisContext& context) {
  return MakeNemesis(config.ChosenNemeses(), context);
}

std::vector<ScheduledFault> MakeSchedule(const RunConfig& config, LockService&) {
  // Validated with the config: a scripted run's steps parse.
  if (!config.steps.is_null()) {
    return ParseScenarioSteps(config.steps, NemesisOpNames(), config.time_limit_s).value();
  }
  ScheduleOptions schedule;
  // Every chosen family is known by now (the nemesis was made from them).
  schedule.families = ScheduleFamilies(config.ChosenNemeses()).value();
  schedule.interval_s = config.nemesis_interval_s;
  schedule.time_limit_s = config.time_limit_s;
  schedule.seed = SubSeed(*config.seed, kScheduleSeed);
  return BuildSchedule(schedule);
}

}  // namespace

const RunModules& DefaultRunModules() {
  static const RunModules kModules{
      MakeCluster,
      MakeService,
      MakeConfiguredWorkload,
      MakeConfiguredNemesis,
      MakeSchedule,
      [] { KillAllSpawnedAsyncSignalSafe(); },
  };
  return kModules;
}

}  // namespace locksmith
