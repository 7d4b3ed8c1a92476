#include "backends/backend_registry.h"

#include <algorithm>

#include "backends/redis_clients.h"
#include "backends/redis_service.h"
#include "backends/redlock_service.h"
#include "backends/sentinel_service.h"
#include "backends/zk_lock_client.h"
#include "backends/zookeeper_service.h"
#include "base/module_registry.h"

namespace locksmith {

const std::vector<BackendEntry>& Backends() {
  // An explicit table rather than static self-registration: static libraries
  // drop object files nothing references, taking their registrars with them.
  static const std::vector<BackendEntry> kBackends = {
      {"redis", FixedHosts<1>, MakeOptions<RedisServiceOptions>, MakeRedisService,
       RedisClientNames()},
      {"zookeeper", ZookeeperHosts, MakeOptions<ZookeeperServiceOptions>, MakeZookeeperService,
       ZkRecipeNames(), ZkSharedRecipeNames()},
      {"redlock", RedlockHosts, MakeOptions<RedlockOptions>, MakeRedlockService, {"redlock"}},
      {"redis-sentinel", SentinelHosts, MakeOptions<SentinelServiceOptions>, MakeSentinelService,
       RedisClientNames()},
  };
  return kBackends;
}

std::vector<std::string> BackendNames() { return EntryNames(Backends()); }

Result<const BackendEntry*> FindBackend(const std::string& name) {
  return FindEntry(Backends(), "backend", name);
}

Result<std::vector<std::string>> BackendNodeNames(const std::string& backend,
                                                  const ModuleOptions& options) {
  auto entry = FindBackend(backend);
  if (!entry) return Error{entry.error()};
  std::vector<std::string> names;
  const int hosts = (*entry)->hosts(options);
  for (int i = 1; i <= hosts; ++i) names.push_back("n" + std::to_string(i));
  return names;
}

Result<std::string> ResolveClient(const std::string& backend, const std::string& client) {
  auto entry = FindBackend(backend);
  if (!entry) return Error{entry.error()};
  const auto& clients = (*entry)->clients;
  if (client.empty()) return clients.front();
  if (std::find(clients.begin(), clients.end(), client) == clients.end()) {
    return Error{"--client " + client + ": backend " + backend + " has clients " +
                 JoinNames(clients)};
  }
  return client;
}

Status CheckSharedClient(const std::string& backend, const std::string& client,
                         const std::string& why) {
  auto resolved = ResolveClient(backend, client);
  if (!resolved) return Error{resolved.error()};
  const auto& shared = (*FindBackend(backend))->shared_clients;
  if (std::find(shared.begin(), shared.end(), *resolved) != shared.end()) return OkStatus();
  std::string offer = "backend " + backend + " has none";
  if (!shared.empty()) offer = "on backend " + backend + ": --client " + JoinNames(shared);
  std::string any;
  for (const auto& e : Backends()) {
    for (const auto& c : e.shared_clients) {
      any += (any.empty() ? "" : ", ") + c + " (" + e.name + ")";
    }
  }
  if (shared.empty() && !any.empty()) offer += "; clients that have them: " + any;
  return Error{why + " takes shared (read) locks, which client " + *resolved + " does not have (" +
               offer + ")"};
}

std::vector<std::string> AllClientNames() {
  std::vector<std::string> names;
  for (const auto& e : Backends()) {
    for (const auto& c : e.clients) {
      if (std::find(names.begin(), names.end(), c) == names.end()) names.push_back(c);
    }
  }
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
