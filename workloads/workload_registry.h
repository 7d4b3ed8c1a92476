// The workloads locksmith knows, by name, each with its options (declared by
// the workload next to it, see OptionSet) and how to build it from them.
// Adding a workload is its own files plus one line in Workloads().
// Thread-safe (immutable table).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/option_set.h"
#include "cluster/host.h"
#include "workloads/resource_store.h"
#include "workloads/workload.h"

namespace locksmith {

struct WorkloadEntry {
  const char* name;
  OptionsFactory options;  // its options at their defaults
  std::unique_ptr<Workload> (*make)(const ModuleOptions& options);
  // It protects a resource: the run adds the host kResourceHost to the
  // cluster and starts the ResourceStore there.
  bool resource_store = false;
};

// The entry of workload W, whose constructor takes its `W::Options`.
template <typename W>
WorkloadEntry WorkloadOf(const char* name, bool resource_store = false) {
  return {name, MakeOptions<typename W::Options>,
          [](const ModuleOptions& options) -> std::unique_ptr<Workload> {
            return std::make_unique<W>(OptionsAs<typename W::Options>(options));
          },
          resource_store};
}

const std::vector<WorkloadEntry>& Workloads();
std::vector<std::string> WorkloadNames();
// True when the workload `name` protects a resource (false for unknown names).
bool WorkloadUsesResourceStore(const std::string& name);
// The protected resource's store on `host`, not started: the default one
// (RedisResourceStore), its server's password `password` (a run secret).
// The one place that picks the store's implementation.
std::unique_ptr<ResourceStore> NewResourceStore(Host& host, std::string password);
// The entry named `name`, or an error listing the known ones.
Result<const WorkloadEntry*> FindWorkload(const std::string& name);
// `options` must have been made by the workload's own factory.
Result<std::unique_ptr<Workload>> MakeWorkload(const std::string& name,
                                               const ModuleOptions& options);

}  // namespace locksmith
