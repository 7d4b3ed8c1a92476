#include "backends/redis_clients.h"

#include "backends/redis_reentrant_lock_client.h"
#include "backends/watchdog_lock_client.h"

namespace locksmith {

std::vector<std::string> RedisClientNames() {
  // The correct recipe first, Redisson's next, then the broken ones.
  std::vector<std::string> names = {"redis", "redis-watchdog", "redis-reentrant"};
  const auto& recipes = RedisRecipeNames();
  names.insert(names.end(), recipes.begin() + 1, recipes.end());
  return names;
}

std::vector<std::string> RedisFencingClientNames() { return {"redis", "redis-watchdog"}; }

std::unique_ptr<LockClient> MakeRedisMasterClient(const std::string& client,
                                                  boost::asio::any_io_executor executor,
                                                  RedisLockClientOptions options, uint64_t seed) {
  if (client == "redis-reentrant") {
    return std::make_unique<RedisReentrantLockClient>(std::move(executor), std::move(options),
                                                      seed);
  }
  // The watchdog's inner client is the correct recipe.
  if (auto recipe = RedisRecipeOf(client); recipe) options.recipe = *recipe;
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
