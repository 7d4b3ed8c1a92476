// WatchdogLockClient: Redisson's RLock watchdog over any lock client that can
// extend a lease (LockClient::Extend: RedisLockClient, SentinelLockClient
// over one). After an ok Acquire it renews the lock every lease/3 (counted
// from the previous renewal's reply, as Redisson schedules it) with the
// inner client's owner-checked extend, back to the full lease, until the
// lock is released, the client closes, or a renewal finds the lock gone or
// another's: then the holder is told it lost the lock. A renewal that got no
// answer (timeout, no connection, an error reply) is tried again a period
// later. Each renewal and each loss is a LockEvent to the sink
// (SetEventSink).
//
// SetPaused(true) stops the watchdog as a JVM GC pause stops Redisson's
// timer thread: no renewal is sent, and a reply that arrives meanwhile is
// handled only after SetPaused(false) (its validity counts the pause). A
// pause longer than what is left of the lease therefore lets the lock
// expire, and the first renewal after it reports the loss.
//
// Thread-safety: none; all calls and the renewals run on the executor. The
// renewals keep what they use alive (shared state), so the client may be
// destroyed after Close while a renewal is still in flight.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "backends/lock_client.h"

namespace locksmith {

class WatchdogLockClient final : public LockClient {
 public:
  WatchdogLockClient(boost::asio::any_io_executor executor, std::unique_ptr<LockClient> inner);
  ~WatchdogLockClient() override;

  boost::asio::awaitable<Status> Connect() override;
  // The inner acquire; when ok, starts renewing the lock.
  boost::asio::awaitable<AcquireResult> Acquire(const std::string& key,
                                                std::chrono::milliseconds lease) override;
  // Stops renewing (a renewal in flight is not reported), then releases.
  boost::asio::awaitable<ReleaseResult> Release(const std::string& key,
                                                const std::string& token) override;
  boost::asio::awaitable<ExtendResult> Extend(const std::string& key, const std::string& token,
                                              std::chrono::milliseconds lease) override;
  void Close() override;
  void SetPaused(bool paused) override;
  void SetEventSink(LockEventSink sink) override;
  // renewals, renewals_failed, locks_lost, plus the inner client's.
  std::map<std::string, int64_t> Counters() const override;

  // Locks being renewed now.
  size_t watched() const;

 private:
  struct State;
  struct Watch;
  static boost::asio::awaitable<void> Renew(std::shared_ptr<State> state,
                                            std::shared_ptr<Watch> watch);
  static boost::asio::awaitable<void> WhilePaused(State& state, const Watch& watch);
  void Stop(const std::string& key);

  std::shared_ptr<State> state_;
};

}  // namespace locksmith
