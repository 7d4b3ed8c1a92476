// RedisReentrantLockClient: the `redis-reentrant` lock client -- Redisson's
// reentrant RLock: the lock is a hash of owner -> hold count, taken and given
// back by Redisson's Lua scripts (kLockScript, kUnlockScript, unchanged but
// for whitespace):
//
//   lock    (KEYS[1] lock, ARGV[1] lease ms, ARGV[2] owner): when the key is
//           free or the owner already holds it, HINCRBY owner 1, PEXPIRE
//           lease, reply nil; otherwise reply the key's PTTL.
//   unlock  (KEYS[1] lock, KEYS[2] channel, ARGV[1] message, ARGV[2] lease,
//           ARGV[3] owner): nil when the owner does not hold it; else
//           HINCRBY owner -1: above 0 PEXPIRE lease and reply 0; at 0 DEL,
//           PUBLISH the message on the channel and reply 1.
//
// The owner (Redisson: UUID:threadId) is a fresh 128-bit random token for each
// hold the client takes while it holds none of the key, and the same token for
// a re-entry: an Acquire of a key this client holds (its own count > 0) is a
// re-entry, ok (nil) after incrementing the count and refreshing the TTL. The
// token an Acquire returns is the owner; Release(key, token) runs unlock for
// it. A fresh owner per outer hold means a hold from an acquire whose outcome
// was unknown is never taken for a re-entry of a later one.
//
// Outcomes (errors and transport as RedisLockClient's table):
//   lock nil                       ok
//   lock integer (PTTL)            fail: held by another ("pttl_ms" in detail)
//   unlock 1                       ok (deleted; published)
//   unlock 0, re-entry left        ok (count decremented, TTL refreshed)
//   unlock 0, outermost release    fail: the server counts more holds than the
//                                  client knows (a re-entry whose outcome was
//                                  unknown took effect), so the lock stays
//                                  held until its lease expires
//   unlock nil                     fail: not held by this owner
// Channel: "redisson_lock__channel:{KEY}", message "0" (Redisson's UNLOCK).
//
// Thread-safety: none (one worker, one call at a time).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "backends/lock_client.h"
#include "backends/redis_connection.h"
#include "backends/redis_lock_client.h"
#include "backends/redis_lock_token.h"
#include "backends/redis_script.h"

namespace locksmith {

class RedisReentrantLockClient final : public LockClient {
 public:
  static constexpr std::string_view kLockScript =
      "if ((redis.call('exists', KEYS[1]) == 0) or "
      "(redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then "
      "redis.call('hincrby', KEYS[1], ARGV[2], 1); "
      "redis.call('pexpire', KEYS[1], ARGV[1]); "
      "return nil; "
      "end; "
      "return redis.call('pttl', KEYS[1]);";
  static constexpr std::string_view kUnlockScript =
      "if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then "
      "return nil; "
      "end; "
      "local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); "
      "if (counter > 0) then "
      "redis.call('pexpire', KEYS[1], ARGV[2]); "
      "return 0; "
      "else "
      "redis.call('del', KEYS[1]); "
      "redis.call('publish', KEYS[2], ARGV[1]); "
      "return 1; "
      "end; "
      "return nil;";
  static constexpr std::string_view kUnlockMessage = "0";

  // Only endpoint, timeout and connect_timeout of the options apply.
  RedisReentrantLockClient(boost::asio::any_io_executor executor, RedisLockClientOptions options,
                           uint64_t seed);

  static std::string ChannelOf(const std::string& key);

  boost::asio::awaitable<Status> Connect() override;
  boost::asio::awaitable<AcquireResult> Acquire(const std::string& key,
                                                std::chrono::milliseconds lease) override;
  boost::asio::awaitable<ReleaseResult> Release(const std::string& key,
                                                const std::string& token) override;
  void Close() override;
  std::map<std::string, int64_t> Counters() const override;

  // This client's hold count of `key` (0: it holds none).
  int holds(const std::string& key) const;

 private:
  struct Held {
    std::string owner;
    int count = 0;
    std::chrono::milliseconds lease{0};
  };
  RedisLockClientOptions options_;
  RedisConnection connection_;
  LockTokenGenerator tokens_;
  RedisScript lock_{kLockScript};
  RedisScript unlock_{kUnlockScript};
  std::map<std::string, Held> held_;
  int64_t reentries_ = 0;
};

}  // namespace locksmith
