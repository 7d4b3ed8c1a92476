// RunModules: how a run builds its parts from its config: the hosts, the
// lock service, the workload, the nemesis and its fault schedule. A run and
// the re-check of a stored run use DefaultRunModules() (the real parts:
// the local cluster provider and the backend, workload and nemesis
// registries); tests of the lifecycle hand in fakes, so every path of a run
// (servers that will not start, a workload that throws, a signal) runs
// without root or servers. Each maker reports what it cannot build as an
// error a user can act on. Plain value; the makers are called from the run's
// thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/lock_service.h"
#include "cluster/host.h"
#include "harness/run_config.h"
#include "nemesis/nemesis.h"
#include "nemesis/nemesis_registry.h"
#include "nemesis/schedule.h"
#include "workloads/workload.h"

namespace locksmith {

// Stream numbers for SubSeed: one per consumer of a run's randomness, so
// adding a consumer never shifts what the others draw from the seed. No
// secret comes from the seed (the run publishes it): server passwords come
// from the kernel (base/random_secret.h); stream 5 drew the resource
// store's password once and stays unused.
enum SeedStream : uint64_t {
  kWorkloadSeed = 1,
  kScheduleSeed = 2,
  kBackendSeed = 3,
  kNemesisSeed = 4,
};

struct RunModules {
  // The hosts for the backend's nodes; host files go under `nodes_dir`.
  std::function<Result<std::unique_ptr<Cluster>>(const RunConfig& config,
                                                 const std::string& nodes_dir)>
      make_cluster;
  // The lock service on those hosts (not started). config.seed is set.
  std::function<Result<std::unique_ptr<LockService>>(const RunConfig& config, Cluster& cluster)>
      make_service;
  // The workload; a stored run's checkers come from it too (Checkers()).
  std::function<Result<std::unique_ptr<Workload>>(const RunConfig& config)> make_workload;
  // The nemesis for the configured fault families, and when each fault runs.
  // `context` carries the run's service, client-side fault families, nemesis seed and
  // the workload's longest lease.
  std::function<Result<std::unique_ptr<Nemesis>>(const RunConfig& config,
                                                 const NemesisContext& context)>
      make_nemesis;
  std::function<std::vector<ScheduledFault>(const RunConfig& config, LockService& service)>
      make_schedule;
  // Called, repeatedly, while a signal stops a server start in progress: must
  // make the start return soon (the real one SIGKILLs every server this
  // process spawned). Runs on the run's thread.
  std::function<void()> abort_start;
};

const RunModules& DefaultRunModules();

}  // namespace locksmith
