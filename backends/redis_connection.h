// RedisConnection: one pipelined, asynchronous connection to a Redis server on
// a Boost.Asio executor. Commands are RESP-encoded into a reusable buffer and
// written once the running handler returns and the socket is free, so the
// commands enqueued meanwhile (by many callers sharing the connection) leave
// in one write; replies are matched to commands in FIFO order, so any number
// of commands may be in flight (pipelining).
//
// Connecting is lazy: the first command (or Connect()) opens the TCP
// connection and sends AUTH when a password is set; commands issued meanwhile
// wait, unwritten, until the handshake is done.
//
// Every command carries a deadline. All failures -- connect error, AUTH
// rejection, deadline passed, connection lost, unparseable reply, Close() --
// go through one place (Fail) that closes the socket, completes every pending
// command with an error and leaves the connection idle; the next command
// reconnects. A connection that timed out is therefore never reused with a
// stale reply in flight. Each failed command is told whether its bytes had
// been handed to the socket (kInDoubt: it may have run) or not (kNotSent: it
// certainly did not run).
//
// Thread-safety: none. Call it only from its executor (a single-threaded
// io_context, or a strand). A completion never runs inside the call that
// started it: errors are posted; replies are dispatched from the read loop,
// so the caller resumes right away (inline) and pipelines its next command.
// Destroying the object closes the connection; do not destroy it while a
// caller still awaits a command.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "backends/redis_protocol.h"
#include "base/result.h"

namespace locksmith {

struct RedisEndpoint {
  std::string host = "127.0.0.1";  // an IP literal, or a name to resolve
  uint16_t port = 6379;
  std::string password;  // empty: no AUTH
  // The local address the socket binds to before connecting (an IP literal;
  // empty: the kernel's choice). Gives a client its own address, so a
  // partition can cut it off alone.
  std::string source_address;
};

struct RedisConnectionOptions {
  RedisEndpoint endpoint;
  // Bounds TCP connect + AUTH; a command's own deadline also bounds it.
  std::chrono::milliseconds connect_timeout{1000};
  // Pub/sub: when set, a published message (an array "message" / "pmessage"
  // ...) is handed here instead of being an unsolicited reply, so a
  // SUBSCRIBEd connection stays up; replies to SUBSCRIBE and PING still go
  // to their commands (SUBSCRIBE one channel per command: each channel is
  // confirmed by a reply of its own). Called inline from the read loop: it must not close
  // or destroy the connection.
  std::function<void(const RedisReply&)> on_message;
};

enum class RedisCallError {
  kNone,
  kNotSent,  // failed before any byte left this process: it certainly did not run
  kInDoubt,  // written, then timeout / connection lost / protocol error: it may have run
  kClosed,   // Close() while pending (may have been written)
};

struct RedisResponse {
  RedisCallError error = RedisCallError::kNone;
  std::string message;  // why, when error != kNone
  RedisReply reply;     // when error == kNone; may itself be an error reply
  bool ok() const { return error == RedisCallError::kNone; }
};

class RedisConnection {
 public:
  using Clock = std::chrono::steady_clock;
  using Handler = boost::asio::any_completion_handler<void(RedisResponse)>;

  RedisConnection(boost::asio::any_io_executor executor, RedisConnectionOptions options);
  ~RedisConnection();
  RedisConnection(const RedisConnection&) = delete;
  RedisConnection& operator=(const RedisConnection&) = delete;

  // Connects (if not yet connected) and checks the server answers PING.
  boost::asio::awaitable<Status> Connect();

  // Sends one command; completes with its reply or an error. `args` is
  // encoded when the operation is initiated (for use_awaitable: when it is
  // co_awaited), so it must live until then -- `co_await Command(args, d)`
  // in one expression is always fine.
  template <typename Token>
  auto AsyncCommand(std::span<const std::string_view> args, Clock::time_point deadline,
                    Token&& token) {
    return boost::asio::async_initiate<Token, void(RedisResponse)>(
        [this, args, deadline](auto handler) {
          Enqueue(args, deadline, Handler(std::move(handler)));
        },
        token);
  }

  boost::asio::awaitable<RedisResponse> Command(std::span<const std::string_view> args,
                                                Clock::time_point deadline) {
    return AsyncCommand(args, deadline, boost::asio::use_awaitable);
  }

  // Closes the socket; pending commands complete with kClosed, later ones
  // with kNotSent. Permanent.
  void Close();

  bool connected() const;
  // TCP connections opened so far (1 after the first connect; more after
  // each reconnect).
  uint64_t connects() const;

 private:
  class Impl;
  void Enqueue(std::span<const std::string_view> args, Clock::time_point deadline, Handler handler);

  std::shared_ptr<Impl> impl_;
};

}  // namespace locksmith
