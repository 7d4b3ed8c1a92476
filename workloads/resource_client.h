// ResourceClient: one worker's connection to the ResourceStore, with the
// resource's operations, each one atomic step on the store (the default
// store's client, RedisResourceClient, makes each a Lua script):
//
//   Read(key, fence?)              the value of `key` (0 when never written)
//   Write(key, value, order, fence?) sets `key` to `value` and, when `order`
//                                  is not empty, appends it to `key:orders`
//   Final(key)                     the value and the orders, after the run
//   Init(key, value)               sets the value, empties the orders, the
//                                  fence (and its holder) and the cache
//                                  (before the workload)
//
// and for a cache-aside pair (the `rw-cache` workload: `key` is the
// database's value, `key:cache` its cached copy):
//
//   ReadCache(key, fence?)         the cached copy, or a miss (found false)
//   FillCache(key, value, fence?)  sets the cached copy (after a miss)
//   WriteInvalidate(key, value, fence?) sets the value and deletes the
//                                  cached copy, in one step
//
// With a fence (--fencing on) a read or write is accepted only when its
// fence is above `key:fence`, the highest the store accepted, or equal to it
// and carried by the acquisition that was granted it (`key:fence-holder`,
// its lock token): a failover can hand one fence to two acquisitions, and
// the second must not pass. The fence and its holder then become the
// highest; otherwise the op is rejected (it did nothing) and the reply says
// the highest. Reads take part, not only writes: a read-modify-write
// whose read is not fenced still loses an update when the older holder
// writes before the newer one (newer reads 5, older writes 4, newer writes
// 4): registering the read's fence makes that older write stale.
//
// The read-modify-write a workload makes of Read and Write is deliberately
// not atomic: the lock is what protects it. Outcomes as for lock clients:
// fail = it certainly did not take effect (a rejection, nothing sent),
// unknown = it may have. Not thread-safe: one worker's calls, one at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "backends/lock_client.h"
#include "base/result.h"

namespace locksmith {

// The fence a read or write carries: the acquire's fencing token and the
// acquisition that was granted it (the acquire's lock token).
struct Fence {
  int64_t value = 0;
  std::string holder;
};

struct ResourceReply {
  Outcome outcome = Outcome::kUnknown;
  int64_t value = 0;                // Read, Final, ReadCache: the value
  bool found = true;                // ReadCache: false on a miss (no cached copy)
  std::vector<std::string> orders;  // Final: the orders, in the order written
  bool rejected = false;            // fenced and stale (outcome kFail)
  int64_t highest = 0;              // when rejected: the highest fence accepted
  std::string error;                // why fail / unknown
};

class ResourceClient {
 public:
  virtual ~ResourceClient() = default;

  virtual boost::asio::awaitable<Status> Connect() = 0;
  virtual boost::asio::awaitable<ResourceReply> Read(const std::string& key,
                                                     std::optional<Fence> fence) = 0;
  virtual boost::asio::awaitable<ResourceReply> Write(const std::string& key, int64_t value,
                                                      const std::string& order,
                                                      std::optional<Fence> fence) = 0;
  virtual boost::asio::awaitable<ResourceReply> Final(const std::string& key) = 0;
  virtual boost::asio::awaitable<ResourceReply> Init(const std::string& key, int64_t value) = 0;
  virtual boost::asio::awaitable<ResourceReply> ReadCache(const std::string& key,
                                                          std::optional<Fence> fence) = 0;
  virtual boost::asio::awaitable<ResourceReply> FillCache(const std::string& key, int64_t value,
                                                          std::optional<Fence> fence) = 0;
  virtual boost::asio::awaitable<ResourceReply> WriteInvalidate(const std::string& key,
                                                                int64_t value,
                                                                std::optional<Fence> fence) = 0;
  virtual void Close() = 0;
};

}  // namespace locksmith
