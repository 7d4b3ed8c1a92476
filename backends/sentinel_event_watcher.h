// SentinelEventWatcher: subscribes to every sentinel's event channels
// (+sdown, -sdown, +odown, -odown, +switch-master, +failover-end, and
// +convert-to-slave: a returning old master made a replica) on a
// thread of its own and hands each published event to a sink, naming the
// sentinel that published it. A sentinel that is down, paused or restarted is
// subscribed to again (PINGed every `ping`, reconnected after a loss), so
// a run sees the events of every sentinel that is up.
//
// Thread-safety: Start and Stop from one thread; the sink is called from the
// watcher's thread. Stop() returns after the last sink call.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "backends/redis_connection.h"
#include "backends/service_events.h"

namespace locksmith {

// The events the sentinels publish that a run records (one channel each),
// reported by each sentinel, named in the value's "sentinel"; the
// +switch-master of one promotion comes from every sentinel that sees it.
ServiceEventKinds SentinelEventKinds();

class SentinelEventWatcher {
 public:
  struct Sentinel {
    std::string name;  // "s1"
    RedisEndpoint endpoint;
  };
  // Event `channel` with `payload` from sentinel `name`, turned into a
  // ServiceEvent by the caller (which knows node names).
  using Sink = std::function<void(const std::string& sentinel, const std::string& channel,
                                  const std::string& payload)>;

  // The channels subscribed to: SentinelEventKinds()'s names.
  static const std::vector<std::string>& Channels();

  SentinelEventWatcher(std::vector<Sentinel> sentinels, Sink sink,
                       std::chrono::milliseconds ping = std::chrono::milliseconds(500));
  ~SentinelEventWatcher();
  SentinelEventWatcher(const SentinelEventWatcher&) = delete;
  SentinelEventWatcher& operator=(const SentinelEventWatcher&) = delete;

  void Start();
  void Stop();
  // How many sentinels the watcher is subscribed to right now (every
  // channel confirmed): events published before a sentinel's subscription
  // are not seen. Any thread.
  int Subscribed() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
  std::thread thread_;
};

}  // namespace locksmith
