#include "backends/backend_registry.h"

#include <algorithm>

#include "backends/etcd_service.h"
#include "backends/exec_protocol.h"
#include "backends/mariadb_lock_client.h"
#include "backends/mariadb_service.h"
#include "backends/pg_service.h"
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
      {.name = "redis", .hosts = FixedHosts<1>, .options = MakeOptions<RedisServiceOptions>,
       .make = MakeRedisService, .clients = RedisClientNames(),
       .fencing_clients = RedisFencingClientNames(), .packages = {"redis-server"}},
      {.name = "zookeeper", .hosts = ZookeeperHosts,
       .options = MakeOptions<ZookeeperServiceOptions>, .make = MakeZookeeperService,
       .clients = ZkRecipeNames(), .shared_clients = ZkSharedRecipeNames(),
       .fencing_clients = ZkRecipeNames(), .packages = {"zookeeper"}},
      {.name = "redlock", .hosts = RedlockHosts, .options = MakeOptions<RedlockOptions>,
       .make = MakeRedlockService, .clients = {"redlock"},
       .no_fencing_because = "has no single counter that could give every acquire a token "
                             "that only grows",
       .packages = {"redis-server"}},
      {.name = "redis-sentinel", .hosts = SentinelHosts,
       .options = MakeOptions<SentinelServiceOptions>, .make = MakeSentinelService,
       .clients = RedisClientNames(), .fencing_clients = RedisFencingClientNames(),
       .packages = {"redis-server", "redis-sentinel"}, .service_events = SentinelEventKinds},
      {.name = "etcd", .hosts = EtcdHosts, .options = MakeOptions<EtcdServiceOptions>,
       .make = MakeEtcdService, .clients = {"etcd"}, .fencing_clients = {"etcd"},
       .packages = {"etcd-server"}},
      {.name = "mariadb", .hosts = FixedHosts<1>, .options = MakeOptions<MariadbServiceOptions>,
       .make = MakeMariadbService, .clients = MariadbClientNames(),
       .fencing_clients = MariadbClientNames(), .packages = {"mariadb-server"}},
      {.name = "postgres", .hosts = FixedHosts<1>, .options = MakeOptions<NoOptions>,
       .make = MakePostgresService, .clients = PgClientNames(),
       .fencing_clients = PgClientNames(), .packages = {"postgresql-15"}},
  };
  return kBackends;
}

std::vector<std::string> BackendNames() { return EntryNames(Backends()); }

std::string DefaultBackendName() { return Backends().front().name; }

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
  if (IsExecClient(client)) {
    if (auto argv = ParseExecClient(client); !argv) return Error{argv.error()};
    return client;
  }
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
  // A program says at its handshake whether it has them (ExecLockClient).
  if (IsExecClient(*resolved)) return OkStatus();
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

Status CheckFencingClient(const std::string& backend, const std::string& client) {
  auto resolved = ResolveClient(backend, client);
  if (!resolved) return Error{resolved.error()};
  // A program says at its handshake whether it gives one (ExecLockClient).
  if (IsExecClient(*resolved)) return OkStatus();
  const BackendEntry& entry = **FindBackend(backend);
  const auto& fencing = entry.fencing_clients;
  if (fencing.empty()) {
    std::vector<std::string> with_fencing;
    for (const auto& e : Backends()) {
      if (!e.fencing_clients.empty()) with_fencing.emplace_back(e.name);
    }
    return Error{"--fencing on: " + backend + " " + entry.no_fencing_because + " (use " +
                 JoinNames(with_fencing) + ")"};
  }
  if (std::find(fencing.begin(), fencing.end(), *resolved) != fencing.end()) return OkStatus();
  std::string use;
  for (const auto& c : fencing) use += (use.empty() ? "--client " : " or ") + c;
  return Error{"--fencing on: the " + *resolved + " client gives no fencing token (use " + use +
               ")"};
}

Result<std::vector<std::string>> BackendPackages(const std::string& backend) {
  auto entry = FindBackend(backend);
  if (!entry) return Error{entry.error()};
  return (*entry)->packages;
}

std::optional<ServiceEventKinds> BackendServiceEvents(const std::string& backend) {
  auto entry = FindBackend(backend);
  if (!entry || (*entry)->service_events == nullptr) return std::nullopt;
  return (*entry)->service_events();
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
