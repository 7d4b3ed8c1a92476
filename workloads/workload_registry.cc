#include "workloads/workload_registry.h"

#include "workloads/mutex_workload.h"

namespace locksmith {
namespace {

struct Entry {
  const char* name;
  std::unique_ptr<Workload> (*make)();
};

// An explicit table rather than static self-registration: static libraries
// drop object files nothing references, taking their registrars with them.
const Entry kWorkloads[] = {
    {"mutex", [] { return std::unique_ptr<Workload>(new MutexWorkload()); }},
};

}  // namespace

std::vector<std::string> WorkloadNames() {
  std::vector<std::string> names;
  for (const auto& e : kWorkloads) names.emplace_back(e.name);
  return names;
}

Result<std::unique_ptr<Workload>> MakeWorkload(const std::string& name) {
  for (const auto& e : kWorkloads) {
    if (name == e.name) return e.make();
  }
  return Error{"unknown workload \"" + name + "\" (known: " + JoinNames(WorkloadNames()) + ")"};
}

}  // namespace locksmith
