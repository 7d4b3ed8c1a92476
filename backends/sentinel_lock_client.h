// SentinelLockClient: a lock client of a Sentinel-managed Redis. It finds the
// master through the sentinels (SentinelMasterFinder), runs an inner lock
// client (the `redis` recipe, or another one made by `make_client`) against
// it, and follows failovers: it asks the sentinels again before the next
// call after a +switch-master, a READONLY / MASTERDOWN reply, or a call whose
// outcome was unknown (timeout, lost connection). When the master moved, the
// inner client is replaced by one on the new master (its seed drawn from
// this client's seed and the switch count, so tokens never repeat).
//
// Outcomes are the inner client's; a call for which no sentinel named a
// master sent nothing and fails (kFail). A lock held across a failover is
// released on the new master, where the key may be missing (fail), as with
// any Sentinel-aware client.
//
// Extend (a watchdog's renewal) may run while a worker's call is in flight:
// one master lookup runs at a time (the others wait for it), and each call
// keeps the inner client it started on alive, so a master change never
// destroys a client under a pending call (the old one is closed: its
// pending calls end unknown).
//
// Thread-safety: none (calls come from the executor's thread). Destroy only
// when no call is pending.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/steady_timer.hpp>

#include "backends/lock_client.h"
#include "backends/redis_connection.h"
#include "backends/sentinel_master_finder.h"

namespace locksmith {

using MakeRedisLockClientFn = std::function<std::unique_ptr<LockClient>(
    boost::asio::any_io_executor executor, const RedisEndpoint& master, uint64_t seed)>;

struct SentinelLockClientOptions {
  std::vector<RedisEndpoint> sentinels;
  std::string master_name;
  std::string password;  // the master's
  std::chrono::milliseconds timeout{1000};  // bounds a master lookup, like a call
  MakeRedisLockClientFn make_client;
  bool watch = true;  // subscribe to +switch-master
};

class SentinelLockClient final : public LockClient {
 public:
  SentinelLockClient(boost::asio::any_io_executor executor, SentinelLockClientOptions options,
                     uint64_t seed);
  ~SentinelLockClient() override;

  // Finds the master and connects to it.
  boost::asio::awaitable<Status> Connect() override;
  boost::asio::awaitable<AcquireResult> Acquire(const std::string& key,
                                                std::chrono::milliseconds lease) override;
  boost::asio::awaitable<ReleaseResult> Release(const std::string& key,
                                                const std::string& token) override;
  // The inner client's extend on the current master.
  boost::asio::awaitable<ExtendResult> Extend(const std::string& key, const std::string& token,
                                              std::chrono::milliseconds lease) override;
  void Close() override;
  // The inner client's kAcquireAnswered (its crash point, as redis-setnx-
  // expire's), passed on to it and to every one made after a failover; its
  // other points are not passed on.
  void SetFaultPointHook(ClientFaultPointHook hook) override;
  ClientFaultPoints OwnFaultPoints() const override;

  // The master the inner client talks to ("" before the first lookup).
  std::string master() const;
  // Inner clients made so far (1 + the master changes it followed).
  uint64_t masters_followed() const { return clients_made_; }

 private:
  // Asks the sentinels when needed; an error when none named a master.
  boost::asio::awaitable<Status> EnsureMaster();
  // The lookup itself (one at a time, from EnsureMaster).
  boost::asio::awaitable<Status> LookUpMaster();
  // Marks the master as doubtful after an outcome that hints at a failover.
  void Observe(Outcome outcome, const std::string& error);

  boost::asio::any_io_executor executor_;
  SentinelLockClientOptions options_;
  uint64_t seed_;
  SentinelMasterFinder finder_;
  std::shared_ptr<LockClient> inner_;
  bool looking_up_ = false;               // a master lookup is in flight
  boost::asio::steady_timer lookup_done_;  // cancelled when it ends
  RedisEndpoint master_;
  bool stale_ = true;
  bool closed_ = false;
  uint64_t seen_switches_ = 0;
  uint64_t clients_made_ = 0;
  ClientFaultPointHook crash_point_;  // kAcquireAnswered only; may be empty
};

}  // namespace locksmith
