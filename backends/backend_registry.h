// The backends locksmith knows, by name: how many hosts each needs, its
// options (declared by the backend next to its service, see OptionSet) and
// how to build its LockService on a cluster from them. Adding a backend is
// its own files plus one line in kBackends. Thread-safe (immutable table).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/lock_service.h"
#include "checker/option_set.h"
#include "harness/host.h"

namespace locksmith {

// What a backend is built with besides its own options: run-wide facts.
struct BackendContext {
  Cluster& cluster;
  uint64_t seed = 0;  // the backend's own stream (passwords, ...)
  std::chrono::milliseconds client_timeout{500};  // deadline of every client call
};

using MakeBackendFn = Result<std::unique_ptr<LockService>> (*)(const ModuleOptions& options,
                                                               const BackendContext& context);

struct BackendEntry {
  const char* name;
  int nodes;                   // hosts it needs: n1 .. n<nodes>
  OptionsFactory options;      // its options at their defaults
  MakeBackendFn make;
};

const std::vector<BackendEntry>& Backends();
std::vector<std::string> BackendNames();
// The entry named `name`, or an error listing the known ones.
Result<const BackendEntry*> FindBackend(const std::string& name);
// Host names the backend needs ("n1", ...), or an error for an unknown name.
Result<std::vector<std::string>> BackendNodeNames(const std::string& backend);
// `options` must have been made by the backend's own factory.
Result<std::unique_ptr<LockService>> MakeLockService(const std::string& backend,
                                                     const ModuleOptions& options,
                                                     const BackendContext& context);

}  // namespace locksmith
