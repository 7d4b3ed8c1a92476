#include "workloads/redis_resource_store.h"

#include "backends/redis_service.h"
#include "workloads/redis_resource_client.h"

namespace locksmith {

RedisResourceStore::RedisResourceStore(Host& host, std::string password,
                                       std::chrono::milliseconds ready_timeout)
    : password_(std::move(password)),
      process_(RedisServerOptions(ServiceNode{host.Name(), kPrimaryRole, host.Name(),
                                              "redis-server", host.Address(),
                                              host.ServicePort(6379)},
                                  &host, ready_timeout)) {}

RedisResourceStore::~RedisResourceStore() { Stop(); }

Status RedisResourceStore::Start() {
  const ServiceNode& node = process_.info();
  Host& host = *process_.host();
  const std::string config =
      RedisConfigText(node.address, node.port, password_, "none", RedisDataDir(host));
  if (Status s = process_.Launch(RedisServerLaunch(host, config), RedisPingProbe(Endpoint())); !s) {
    return Error{"resource store: " + s.error()};
  }
  return OkStatus();
}

void RedisResourceStore::Stop() { process_.Stop(); }

std::unique_ptr<ResourceClient> RedisResourceStore::NewClient(
    boost::asio::any_io_executor executor, std::chrono::milliseconds timeout) {
  return std::make_unique<RedisResourceClient>(std::move(executor), Endpoint(), timeout);
}

RedisEndpoint RedisResourceStore::Endpoint() const {
  const ServiceNode& node = process_.info();
  return {node.address, static_cast<uint16_t>(node.port), password_};
}

}  // namespace locksmith
