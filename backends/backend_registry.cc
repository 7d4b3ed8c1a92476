#include "backends/backend_registry.h"

#include "backends/redis_service.h"

namespace locksmith {
namespace {

struct Entry {
  const char* name;
  int nodes;
  std::unique_ptr<LockService> (*make)(const BackendOptions&, Cluster&);
};

const Entry kBackends[] = {
    {"redis", 1,
     [](const BackendOptions& o, Cluster& cluster) -> std::unique_ptr<LockService> {
       RedisServiceOptions r;
       r.nodes = 1;
       r.persistence = o.redis_persistence;
       r.password = o.password;
       r.client_timeout = o.client_timeout;
       return std::make_unique<RedisService>(cluster, r);
     }},
};

const Entry* Find(const std::string& name) {
  for (const auto& e : kBackends) {
    if (name == e.name) return &e;
  }
  return nullptr;
}

Error Unknown(const std::string& name) {
  return Error{"unknown backend \"" + name + "\" (known: " + JoinNames(BackendNames()) + ")"};
}

}  // namespace

std::vector<std::string> BackendNames() {
  std::vector<std::string> names;
  for (const auto& e : kBackends) names.emplace_back(e.name);
  return names;
}

Result<std::vector<std::string>> BackendNodeNames(const std::string& backend) {
  const Entry* e = Find(backend);
  if (e == nullptr) return Unknown(backend);
  std::vector<std::string> names;
  for (int i = 1; i <= e->nodes; ++i) names.push_back("n" + std::to_string(i));
  return names;
}

Result<std::unique_ptr<LockService>> MakeLockService(const BackendOptions& options,
                                                     Cluster& cluster) {
  const Entry* e = Find(options.name);
  if (e == nullptr) return Unknown(options.name);
  return e->make(options, cluster);
}

}  // namespace locksmith
