// SentinelMasterFinder: where a lock client learns which Redis node is the
// master, the way Sentinel-aware clients (Redisson, Jedis) do it.
//   Ask():   SENTINEL get-master-addr-by-name <name> to each sentinel in turn
//            (starting at the last one that answered) until one names a
//            master; each question has its own share of the deadline.
//   Watch(): a pub/sub connection to one sentinel, SUBSCRIBEd to
//            +switch-master and PINGed every `watch_ping` so a dead or paused
//            sentinel is noticed and the next one taken; each switch for our
//            master bumps switches(), so the client asks again before its next
//            call. (RESP2 allows PING on a subscribed connection.)
// Every connection carries the sentinels' password.
//
// Thread-safety: none; use it on its executor only. Close() before
// destroying it; Watch()'s loop ends soon after (it holds the state it uses
// through a shared pointer).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "backends/redis_connection.h"
#include "base/result.h"

namespace locksmith {

struct SentinelMasterFinderOptions {
  std::vector<RedisEndpoint> sentinels;
  std::string master_name;
  std::string master_password;  // put into the endpoints Ask() returns
  std::chrono::milliseconds watch_ping{500};
};

// The new master's address in a +switch-master message
// "<name> <old-ip> <old-port> <new-ip> <new-port>" for `master_name`
// (pure; nullopt for another master or a malformed message).
std::optional<std::pair<std::string, uint16_t>> ParseSwitchMaster(const std::string& payload,
                                                                  const std::string& master_name);

class SentinelMasterFinder {
 public:
  SentinelMasterFinder(boost::asio::any_io_executor executor, SentinelMasterFinderOptions options);
  ~SentinelMasterFinder();
  SentinelMasterFinder(const SentinelMasterFinder&) = delete;
  SentinelMasterFinder& operator=(const SentinelMasterFinder&) = delete;

  // The master as the first sentinel that answers names it, by `deadline`.
  boost::asio::awaitable<Result<RedisEndpoint>> Ask(std::chrono::steady_clock::time_point deadline);
  // Starts the +switch-master subscription (once; later calls do nothing).
  void Watch();
  // +switch-master messages for our master seen so far.
  uint64_t switches() const;
  void Close();

 private:
  struct State;
  static boost::asio::awaitable<void> WatchLoop(std::shared_ptr<State> state);

  std::shared_ptr<State> state_;
};

}  // namespace locksmith
