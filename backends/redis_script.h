// RedisScript: one Lua script a lock client runs on a RedisConnection: loaded
// once (SCRIPT LOAD at Connect, which gives its SHA1), then run by EVALSHA;
// on NOSCRIPT (a restarted Redis without persistence forgets its script
// cache; the script did not run, so retrying is safe) the same call runs it
// again with EVAL within the same deadline. Before a load it runs by EVAL.
// Thread-safety: none (used from the connection's executor).
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include <boost/asio/awaitable.hpp>

#include "backends/redis_connection.h"
#include "base/result.h"

namespace locksmith {

class RedisScript {
 public:
  // `body` must outlive the object (a string literal); `sha1` its SHA1 when
  // known at compile time (empty: EVAL until Load).
  explicit RedisScript(std::string_view body, std::string_view sha1 = {})
      : body_(body), sha_(sha1) {}

  // SCRIPT LOAD; remembers the SHA1 the server reports.
  boost::asio::awaitable<Status> Load(RedisConnection& connection,
                                      RedisConnection::Clock::time_point deadline);
  // EVALSHA sha numkeys keys... args... (EVAL before a load or on NOSCRIPT).
  boost::asio::awaitable<RedisResponse> Run(RedisConnection& connection,
                                            std::span<const std::string_view> keys,
                                            std::span<const std::string_view> args,
                                            RedisConnection::Clock::time_point deadline);

  std::string_view body() const { return body_; }
  const std::string& sha1() const { return sha_; }
  // Runs that met NOSCRIPT and fell back to EVAL.
  uint64_t noscript_fallbacks() const { return noscript_fallbacks_; }

 private:
  std::string_view body_;
  std::string sha_;
  uint64_t noscript_fallbacks_ = 0;
};

}  // namespace locksmith
