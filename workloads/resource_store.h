// ResourceStore: the protected resource's own server -- one password-protected
// redis-server (no persistence) on a host of the run that no backend node
// uses (kResourceHost, added to the cluster for workloads that protect a
// resource), so no fault touches it unless a scenario names it. It holds
// what the locks protect: per item its stock and its orders, per counter its
// value, and the highest fence it accepted. Lua scripts make each read and
// each write one atomic step (ResourceClient).
//
// Thread-safety: Start / Stop from the run thread; Endpoint() from any.
#pragma once

#include <chrono>
#include <string>

#include "backends/redis_connection.h"
#include "backends/server_process.h"
#include "base/result.h"
#include "cluster/host.h"

namespace locksmith {

// The name of the store's host in the cluster (and of its node directory).
inline constexpr char kResourceHost[] = "store";

class ResourceStore {
 public:
  ResourceStore(Host& host, std::string password,
                std::chrono::milliseconds ready_timeout = std::chrono::seconds(20));
  ~ResourceStore();

  // Writes redis.conf, spawns redis-server and waits until it answers.
  Status Start();
  // Kills it; never fails (teardown kills leftovers too).
  void Stop();
  // How clients reach it (without a source address: the store is never
  // partitioned from the clients).
  RedisEndpoint Endpoint() const;

 private:
  const std::string password_;
  ServerProcess process_;
};

}  // namespace locksmith
