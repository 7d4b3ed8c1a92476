#include "workloads/workload_registry.h"

#include "base/module_registry.h"
#include "workloads/counter_workload.h"
#include "workloads/inventory_workload.h"
#include "workloads/mutex_workload.h"
#include "workloads/redis_resource_store.h"
#include "workloads/rw_cache_workload.h"

namespace locksmith {

const std::vector<WorkloadEntry>& Workloads() {
  // An explicit table rather than static self-registration: static libraries
  // drop object files nothing references, taking their registrars with them.
  static const std::vector<WorkloadEntry> kWorkloads = {
      WorkloadOf<MutexWorkload>("mutex"),
      WorkloadOf<InventoryWorkload>("inventory", /*resource_store=*/true),
      WorkloadOf<CounterWorkload>("counter", /*resource_store=*/true),
      WorkloadOf<RwCacheWorkload>("rw-cache", /*resource_store=*/true),
  };
  return kWorkloads;
}

std::vector<std::string> WorkloadNames() { return EntryNames(Workloads()); }

bool WorkloadUsesResourceStore(const std::string& name) {
  auto entry = FindWorkload(name);
  return entry && (*entry)->resource_store;
}

std::unique_ptr<ResourceStore> NewResourceStore(Host& host, std::string password) {
  return std::make_unique<RedisResourceStore>(host, std::move(password));
}

Result<const WorkloadEntry*> FindWorkload(const std::string& name) {
  return FindEntry(Workloads(), "workload", name);
}

Result<std::unique_ptr<Workload>> MakeWorkload(const std::string& name,
                                               const ModuleOptions& options) {
  auto entry = FindWorkload(name);
  if (!entry) return Error{entry.error()};
  return (*entry)->make(options);
}

}  // namespace locksmith
