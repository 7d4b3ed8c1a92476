// RedisResourceStore: the default ResourceStore -- one password-protected
// redis-server (no persistence) on the store's host; its clients are
// RedisResourceClients.
//
// Thread-safety: Start / Stop from the run thread; Endpoint() and
// NewClient from any.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "backends/redis_connection.h"
#include "backends/server_process.h"
#include "cluster/host.h"
#include "workloads/resource_store.h"

namespace locksmith {

class RedisResourceStore : public ResourceStore {
 public:
  RedisResourceStore(Host& host, std::string password,
                     std::chrono::milliseconds ready_timeout = std::chrono::seconds(20));
  ~RedisResourceStore() override;

  // Writes redis.conf, spawns redis-server and waits until it answers.
  Status Start() override;
  // Kills it.
  void Stop() override;
  std::unique_ptr<ResourceClient> NewClient(boost::asio::any_io_executor executor,
                                            std::chrono::milliseconds timeout) override;
  // How clients reach it.
  RedisEndpoint Endpoint() const;

 private:
  const std::string password_;
  ServerProcess process_;
};

}  // namespace locksmith
