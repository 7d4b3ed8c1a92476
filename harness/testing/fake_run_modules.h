// FakeRunModules (test-only): run modules on fakes, so a whole run or suite
// goes through the real lifecycle without root or servers: one fake host, a
// FakeLockService, the mutex workload, the registry's nemesis and no faults.
// A run whose test name starts with "broken" gets a service that grants every
// acquire (two holders at once); with a watcher, one whose test name starts
// with "interrupted" gets SIGINT while its servers start. Not thread-safe.
#pragma once

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "backends/testing/fake_lock_service.h"
#include "cluster/testing/fake_cluster.h"
#include "harness/run_modules.h"
#include "harness/signal_watcher.h"
#include "workloads/mutex_workload.h"

namespace locksmith::testing {

inline RunModules FakeRunModules(SignalWatcher* signals = nullptr) {
  RunModules m;
  m.make_cluster = [](const RunConfig&, const std::string&) {
    return Result<std::unique_ptr<Cluster>>(
        std::make_unique<FakeCluster>(std::vector<std::string>{"n1"}));
  };
  m.make_service = [signals](const RunConfig& config, Cluster&) {
    if (signals != nullptr && config.test_name.rfind("interrupted", 0) == 0) {
      // To the process, not this thread (which blocks it): the watcher takes it.
      ::kill(::getpid(), SIGINT);
      while (!signals->interrupted()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    auto service = std::make_unique<FakeLockService>();
    service->state.grant_everything = config.test_name.rfind("broken", 0) == 0;
    return Result<std::unique_ptr<LockService>>(std::move(service));
  };
  m.make_workload = [](const RunConfig&) -> Result<std::unique_ptr<Workload>> {
    return std::unique_ptr<Workload>(new MutexWorkload());
  };
  m.make_nemesis = [](const RunConfig& config, const NemesisContext& context) {
    return DefaultRunModules().make_nemesis(config, context);
  };
  m.make_schedule = [](const RunConfig&, LockService&) { return std::vector<ScheduledFault>{}; };
  return m;
}

}  // namespace locksmith::testing
