// The lock clients of the Redis backends with one master (`redis`,
// `redis-sentinel`), by `--client` name, built the same way on both:
//   redis            SET NX PX + compare-and-delete (RedisLockClient)
//   redis-watchdog   the same, renewed by Redisson's watchdog
//                    (WatchdogLockClient around it; on redis-sentinel around
//                    the SentinelLockClient, so renewals follow a failover)
//   redis-reentrant  Redisson's reentrant hash lock (RedisReentrantLockClient)
//   redis-get-set, redis-setnx-expire, redis-del-unlock
//                    the broken blog-post recipes (RedisLockRecipe)
// Free functions; thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>

#include "backends/lock_client.h"
#include "backends/redis_lock_client.h"

namespace locksmith {

// Every name above; the first ("redis") is the default.
std::vector<std::string> RedisClientNames();
// Those whose acquires carry a fencing token (an INCR in the acquire script).
std::vector<std::string> RedisFencingClientNames();

// The client that talks to one master for `client` (the watchdog's inner
// client for redis-watchdog).
std::unique_ptr<LockClient> MakeRedisMasterClient(const std::string& client,
                                                  boost::asio::any_io_executor executor,
                                                  RedisLockClientOptions options, uint64_t seed);

// What wraps the master's client (or the sentinel client around it) for
// `client`: the watchdog for redis-watchdog; `inner` itself otherwise.
std::unique_ptr<LockClient> WrapRedisClient(const std::string& client,
                                            boost::asio::any_io_executor executor,
                                            std::unique_ptr<LockClient> inner);

}  // namespace locksmith
