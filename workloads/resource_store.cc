#include "workloads/resource_store.h"

#include "backends/redis_service.h"

namespace locksmith {
namespace {

constexpr char kDataDir[] = "data";

}  // namespace

ResourceStore::ResourceStore(Host& host, std::string password,
                             std::chrono::milliseconds ready_timeout)
    : host_(host),
      process_(std::make_unique<RedisNodeProcess>(
          ServiceNode{host.Name(), NodeRole::kPrimary, host.Name(), "redis-server",
                      host.Address(), host.ServicePort(6379)},
          &host, RedisNodeFiles{"redis-server", "redis.conf", "redis.log"}, std::move(password),
          ready_timeout)) {}

ResourceStore::~ResourceStore() { Stop(); }

Status ResourceStore::Start() {
  if (Status s = host_.MakeDirectory(kDataDir); !s) return Error{"resource store: " + s.error()};
  const ServiceNode& node = process_->info();
  const std::string config = RedisConfigText(node.address, node.port, process_->Endpoint().password,
                                             "none", host_.PathOf(kDataDir));
  if (Status s = process_->Launch(config); !s) return Error{"resource store: " + s.error()};
  return OkStatus();
}

void ResourceStore::Stop() { process_->Stop(); }

RedisEndpoint ResourceStore::Endpoint() const { return process_->Endpoint(); }

}  // namespace locksmith
