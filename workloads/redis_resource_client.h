// RedisResourceClient: the default ResourceClient, on the Redis server a
// RedisResourceStore runs: each of the resource's operations is one Lua
// script, so each read and each write, with its fence check, is one atomic
// step (the scripts and their keys are in redis_resource_client.cc). Not
// thread-safe: one worker's calls, one at a time.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "backends/redis_connection.h"
#include "workloads/resource_client.h"

namespace locksmith {

class RedisResourceClient : public ResourceClient {
 public:
  RedisResourceClient(boost::asio::any_io_executor executor, RedisEndpoint endpoint,
                      std::chrono::milliseconds timeout);

  boost::asio::awaitable<Status> Connect() override;
  boost::asio::awaitable<ResourceReply> Read(const std::string& key,
                                             std::optional<Fence> fence) override;
  boost::asio::awaitable<ResourceReply> Write(const std::string& key, int64_t value,
                                              const std::string& order,
                                              std::optional<Fence> fence) override;
  boost::asio::awaitable<ResourceReply> Final(const std::string& key) override;
  boost::asio::awaitable<ResourceReply> Init(const std::string& key, int64_t value) override;
  boost::asio::awaitable<ResourceReply> ReadCache(const std::string& key,
                                                  std::optional<Fence> fence) override;
  boost::asio::awaitable<ResourceReply> FillCache(const std::string& key, int64_t value,
                                                  std::optional<Fence> fence) override;
  boost::asio::awaitable<ResourceReply> WriteInvalidate(const std::string& key, int64_t value,
                                                        std::optional<Fence> fence) override;
  void Close() override;

 private:
  boost::asio::awaitable<RedisResponse> Eval(std::string_view script,
                                             const std::vector<std::string>& keys,
                                             const std::vector<std::string>& args);

  RedisConnection connection_;
  std::chrono::milliseconds timeout_;
};

}  // namespace locksmith
