// The backends locksmith knows, by name: how many hosts each needs and how to
// build its LockService on a cluster. Thread-safe (immutable table).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "backends/lock_service.h"
#include "harness/host.h"

namespace locksmith {

struct BackendOptions {
  std::string name;
  std::string redis_persistence = "none";
  std::string password;
  std::chrono::milliseconds client_timeout{500};
};

std::vector<std::string> BackendNames();
// Host names the backend needs ("n1", ...), or an error for an unknown name.
Result<std::vector<std::string>> BackendNodeNames(const std::string& backend);
Result<std::unique_ptr<LockService>> MakeLockService(const BackendOptions& options,
                                                     Cluster& cluster);

}  // namespace locksmith
