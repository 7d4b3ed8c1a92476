// PongServer (test-only): a FakeRedisServer on a thread of its own that
// answers AUTH with +OK and PING with +PONG, as a ready redis-server would:
// the readiness probe of a service under test passes without a real server.
// Anything else gets an error reply. Thread-safety: construct and destroy on
// one thread; the server itself runs on its own thread.
#pragma once

#include <cstdint>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "backends/testing/fake_redis_server.h"

namespace locksmith::testing {

class PongServer {
 public:
  PongServer()
      : server_(io_.get_executor(),
                [](const FakeRedisServer::Command& c) {
                  if (!c.empty() && c[0] == "AUTH") return FakeRedisServer::Action{"+OK\r\n"};
                  if (!c.empty() && c[0] == "PING") return FakeRedisServer::Action{"+PONG\r\n"};
                  return FakeRedisServer::Action{"-ERR not a real server\r\n"};
                }),
        thread_([this] { io_.run(); }) {}
  ~PongServer() {
    boost::asio::post(io_, [this] {
      server_.Stop();
      io_.stop();
    });
    thread_.join();
  }
  PongServer(const PongServer&) = delete;
  PongServer& operator=(const PongServer&) = delete;

  uint16_t port() const { return port_; }

 private:
  boost::asio::io_context io_;
  FakeRedisServer server_;
  const uint16_t port_ = server_.port();  // read before the thread runs
  std::thread thread_;
};

}  // namespace locksmith::testing
