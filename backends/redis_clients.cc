#include "backends/redis_clients.h"

#include "backends/redis_reentrant_lock_client.h"
#include "backends/watchdog_lock_client.h"

namespace locksmith {

std::vector<std::string> RedisClientNames() {
  return {"redis", "redis-watchdog", "redis-reentrant"};
}

std::unique_ptr<LockClient> MakeRedisMasterClient(const std::string& client,
                                                  boost::asio::any_io_executor executor,
                                                  RedisLockClientOptions options, uint64_t seed) {
  if (client == "redis-reentrant") {
    return std::make_unique<RedisReentrantLockClient>(std::move(executor), std::move(options),
                                                      seed);
  }
  return std::make_unique<RedisLockClient>(std::move(executor), std::move(options), seed);
}

std::unique_ptr<LockClient> WrapRedisClient(const std::string& client,
                                            boost::asio::any_io_executor executor,
                                            std::unique_ptr<LockClient> inner) {
  if (client == "redis-watchdog") {
    return std::make_unique<WatchdogLockClient>(std::move(executor), std::move(inner));
  }
  return inner;
}

}  // namespace locksmith
