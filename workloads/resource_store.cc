#include "workloads/resource_store.h"

#include "backends/redis_service.h"

namespace locksmith {

ResourceStore::ResourceStore(Host& host, std::string password,
                             std::chrono::milliseconds ready_timeout)
    : password_(std::move(password)),
      process_(RedisServerOptions(ServiceNode{host.Name(), NodeRole::kPrimary, host.Name(),
                                              "redis-server", host.Address(),
                                              host.ServicePort(6379)},
                                  &host, ready_timeout)) {}

ResourceStore::~ResourceStore() { Stop(); }

Status ResourceStore::Start() {
  const ServiceNode& node = process_.info();
  Host& host = *process_.host();
  const std::string config =
      RedisConfigText(node.address, node.port, password_, "none", RedisDataDir(host));
  if (Status s = process_.Launch(RedisServerLaunch(host, config), RedisPingProbe(Endpoint())); !s) {
    return Error{"resource store: " + s.error()};
  }
  return OkStatus();
}

void ResourceStore::Stop() { process_.Stop(); }

RedisEndpoint ResourceStore::Endpoint() const {
  const ServiceNode& node = process_.info();
  return {node.address, static_cast<uint16_t>(node.port), password_};
}

}  // namespace locksmith
