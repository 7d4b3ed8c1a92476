// The workloads locksmith knows, by name. Thread-safe (immutable table).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "workloads/workload.h"

namespace locksmith {

std::vector<std::string> WorkloadNames();
// Error names the unknown workload and lists the known ones.
Result<std::unique_ptr<Workload>> MakeWorkload(const std::string& name);

}  // namespace locksmith
