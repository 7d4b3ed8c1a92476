#include "backends/backend_registry.h"

#include "backends/redis_service.h"
#include "backends/sentinel_service.h"
#include "checker/module_registry.h"

namespace locksmith {

const std::vector<BackendEntry>& Backends() {
  // An explicit table rather than static self-registration: static libraries
  // drop object files nothing references, taking their registrars with them.
  static const std::vector<BackendEntry> kBackends = {
      {"redis", 1, MakeOptions<RedisServiceOptions>, MakeRedisService},
      {"redis-sentinel", 3, MakeOptions<SentinelServiceOptions>, MakeSentinelService},
  };
  return kBackends;
}

std::vector<std::string> BackendNames() { return EntryNames(Backends()); }

Result<const BackendEntry*> FindBackend(const std::string& name) {
  return FindEntry(Backends(), "backend", name);
}

Result<std::vector<std::string>> BackendNodeNames(const std::string& backend) {
  auto entry = FindBackend(backend);
  if (!entry) return Error{entry.error()};
  std::vector<std::string> names;
  for (int i = 1; i <= (*entry)->nodes; ++i) names.push_back("n" + std::to_string(i));
  return names;
}

Result<std::unique_ptr<LockService>> MakeLockService(const std::string& backend,
                                                     const ModuleOptions& options,
                                                     const BackendContext& context) {
  auto entry = FindBackend(backend);
  if (!entry) return Error{entry.error()};
  return (*entry)->make(options, context);
}

}  // namespace locksmith
