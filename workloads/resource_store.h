// ResourceStore: the protected resource's own server, on a host of the run
// that no backend node uses (kResourceHost, added to the cluster for
// workloads that protect a resource), so no fault touches it unless a
// scenario names it. It holds what the locks protect: per item its stock and
// its orders, per counter its value, and the highest fence it accepted; its
// clients (ResourceClient) make each read and each write one atomic step.
// The default store is one Redis server (RedisResourceStore); another store
// is another implementation of this interface and its client.
//
// Thread-safety: Start / Stop from the run thread; NewClient from any.
#pragma once

#include <chrono>
#include <memory>

#include <boost/asio/any_io_executor.hpp>

#include "base/result.h"
#include "workloads/resource_client.h"

namespace locksmith {

// The name of the store's host in the cluster (and of its node directory).
inline constexpr char kResourceHost[] = "store";

class ResourceStore {
 public:
  virtual ~ResourceStore() = default;

  // Starts the store's server and waits until it answers.
  virtual Status Start() = 0;
  // Stops it; never fails (teardown kills leftovers too).
  virtual void Stop() = 0;
  // A new client of the store (not yet connected) whose every call has
  // `timeout` as its deadline. It reaches the store without a source
  // address: the store is never partitioned from the clients.
  virtual std::unique_ptr<ResourceClient> NewClient(boost::asio::any_io_executor executor,
                                                    std::chrono::milliseconds timeout) = 0;
};

}  // namespace locksmith
