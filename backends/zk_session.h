// ZkSession: one ZooKeeper session of libzookeeper_mt bridged into the Asio
// run loop. The library runs its own io and completion threads; every
// completion and watch event it delivers there is posted to the session's
// executor, so a coroutine on that executor sees results in its own thread.
// Every call has a deadline: a call whose reply has not arrived by then
// returns kTimedOut (its fate is unknown: the server may still apply it).
//
// The session: Open() starts it (the library connects in the background and
// reconnects to another peer after a lost connection, keeping the session).
// An expired session is dead for good: the next call reopens a new one
// (ReopenIfExpired), with a new session id and none of the old ephemeral
// nodes. Suspension: while the library is not connected, suspended_since()
// says since when; a client that was cut off longer than its session timeout
// must assume its session, and so its ephemeral nodes, are gone.
//
// Watches registered with Exists(watch = true) and session events wake
// WaitForEvent(); watch_events() counts the node events delivered (the herd
// effect: how many clients a release woke). SetSessionListener's callback
// runs after each session event (connected, cut off, expired) is applied.
//
// Thread-safety: all calls on the executor's one thread; the library threads
// only post to it. Close() (or the destructor) joins the library's threads:
// no callback runs after it returns.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

#include "base/result.h"

typedef struct _zhandle zhandle_t;

namespace locksmith {

struct ZkStat {
  int64_t czxid = 0;
  int64_t ephemeral_owner = 0;
};

struct ZkReply {
  // ZOK (0), a ZooKeeper error code (negative), or kTimedOut.
  int rc = 0;
  std::string path;                   // Create: the node made
  std::optional<ZkStat> stat;         // Create, Exists
  std::vector<std::string> children;  // Children
};

class ZkSession {
 public:
  using Clock = std::chrono::steady_clock;
  // No reply before the deadline: the request may still take effect.
  static constexpr int kTimedOut = 1;

  ZkSession(boost::asio::any_io_executor executor, std::string connect_string,
            std::chrono::milliseconds session_timeout);
  ~ZkSession();
  ZkSession(const ZkSession&) = delete;
  ZkSession& operator=(const ZkSession&) = delete;

  // The servers to connect to ("addr:port,..."), before Open().
  void set_connect_string(std::string connect_string) {
    connect_string_ = std::move(connect_string);
  }
  // Called on the executor after every session event of the current
  // session (connected, cut off, expired) has updated the state above; never
  // after Close() or the destructor. Set before Open().
  void SetSessionListener(std::function<void()> listener) { listener_ = std::move(listener); }
  // Starts a session (connecting in the background).
  Status Open();
  // A new session when the current one expired; OK otherwise.
  Status ReopenIfExpired();
  void Close();

  // Waits until the session is connected or the deadline passes.
  boost::asio::awaitable<bool> WaitConnected(Clock::time_point deadline);
  // Waits for a watch or session event (or the deadline).
  boost::asio::awaitable<void> WaitForEvent(Clock::time_point deadline);
  // The same, but returns at once when an event came since event_count()
  // was `seen`. A watch set by a call (Exists) may fire before the caller,
  // resumed after the reply, starts waiting: read event_count() before the
  // call and wait with it, or that wake is lost until the deadline.
  boost::asio::awaitable<void> WaitForEvent(Clock::time_point deadline, int64_t seen);
  // Watch and session events (every wake of WaitForEvent) so far.
  int64_t event_count() const;

  boost::asio::awaitable<ZkReply> Create(const std::string& path, const std::string& data,
                                         int flags, Clock::time_point deadline);
  boost::asio::awaitable<ZkReply> Exists(const std::string& path, bool watch,
                                         Clock::time_point deadline);
  boost::asio::awaitable<ZkReply> Children(const std::string& path, Clock::time_point deadline);
  boost::asio::awaitable<ZkReply> Delete(const std::string& path, Clock::time_point deadline);

  bool connected() const;
  bool expired() const;
  // Since when the session has been cut off (nullopt while connected).
  std::optional<Clock::time_point> suspended_since() const;
  // The session id (0 before the first connection); changes on reopen.
  int64_t session_id() const;
  // Sessions opened so far (1 after Open; +1 per reopen).
  int64_t generation() const { return generation_; }
  // The timeout the server granted (the asked one before it answered).
  std::chrono::milliseconds negotiated_timeout() const;
  // Node watch events delivered to this session so far.
  int64_t watch_events() const;

  struct State;          // shared with the library's callbacks
  struct HandleContext;  // one handle's watcher context

 private:
  // Closes the handle (joining the library's threads).
  void CloseHandle();

  boost::asio::any_io_executor executor_;
  std::string connect_string_;
  std::chrono::milliseconds session_timeout_;
  std::function<void()> listener_;
  std::shared_ptr<State> state_;
  std::unique_ptr<HandleContext> handle_context_;
  zhandle_t* zh_ = nullptr;
  int64_t generation_ = 0;
};

// "ZCONNECTIONLOSS", "timed out", ... for messages.
std::string ZkErrorText(int rc);
// True when a request that ended with `rc` certainly did not take effect.
bool ZkDefinitelyNotApplied(int rc);

}  // namespace locksmith
