// FakeRedisServer (test-only): an in-process TCP server on 127.0.0.1 that
// parses RESP commands and answers each with whatever the test's responder
// returns (raw bytes, so tests can send garbage, split replies, or nothing).
// Runs on the test's io_context. Thread-safety: none (one io_context thread).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

namespace locksmith::testing {

class FakeRedisServer {
 public:
  using Command = std::vector<std::string>;
  struct Action {
    std::string bytes;         // written back (may be empty: no reply)
    bool close_after = false;  // close the connection after writing
  };
  using Responder = std::function<Action(const Command&)>;

  FakeRedisServer(boost::asio::any_io_executor executor, Responder responder)
      : executor_(executor),
        acceptor_(executor, {boost::asio::ip::make_address("127.0.0.1"), 0}),
        responder_(std::move(responder)) {
    boost::asio::co_spawn(executor_, AcceptLoop(), boost::asio::detached);
  }

  uint16_t port() const { return acceptor_.local_endpoint().port(); }
  const std::vector<Command>& commands() const { return commands_; }
  int connections() const { return connections_; }
  // The most commands one read of a socket carried (a client's batching).
  size_t largest_batch() const { return largest_batch_; }

  // Closes the listener and every connection, so the io_context can drain.
  void Stop() {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    for (auto& s : sockets_) s->close(ignored);
  }

 private:
  using Socket = boost::asio::ip::tcp::socket;

  boost::asio::awaitable<void> AcceptLoop() {
    for (;;) {
      auto [ec, socket] =
          co_await acceptor_.async_accept(boost::asio::as_tuple(boost::asio::use_awaitable));
      if (ec) co_return;
      ++connections_;
      auto s = std::make_shared<Socket>(std::move(socket));
      sockets_.push_back(s);
      boost::asio::co_spawn(executor_, Session(s), boost::asio::detached);
    }
  }

  // Pulls whole RESP arrays of bulk strings off the front of `buf`.
  static bool ParseOne(std::string& buf, Command& out) {
    size_t pos = 0;
    auto line = [&](char prefix, long& n) {
      if (pos >= buf.size() || buf[pos] != prefix) return false;
      size_t eol = buf.find("\r\n", pos);
      if (eol == std::string::npos) return false;
      n = std::stol(buf.substr(pos + 1, eol - pos - 1));
      pos = eol + 2;
      return true;
    };
    long count = 0;
    if (!line('*', count)) return false;
    Command cmd;
    for (long i = 0; i < count; ++i) {
      long len = 0;
      if (!line('$', len)) return false;
      if (buf.size() < pos + static_cast<size_t>(len) + 2) return false;
      cmd.push_back(buf.substr(pos, static_cast<size_t>(len)));
      pos += static_cast<size_t>(len) + 2;
    }
    buf.erase(0, pos);
    out = std::move(cmd);
    return true;
  }

  boost::asio::awaitable<void> Session(std::shared_ptr<Socket> s) {
    std::string buf;
    char chunk[4096];
    for (;;) {
      auto [ec, n] = co_await s->async_read_some(boost::asio::buffer(chunk),
                                                 boost::asio::as_tuple(boost::asio::use_awaitable));
      if (ec) co_return;
      buf.append(chunk, n);
      std::string out;
      bool close = false;
      Command cmd;
      size_t batch = 0;
      while (!close && ParseOne(buf, cmd)) {
        commands_.push_back(cmd);
        ++batch;
        Action a = responder_(cmd);
        out += a.bytes;
        close = a.close_after;
      }
      largest_batch_ = std::max(largest_batch_, batch);
      if (!out.empty()) {
        auto [wec, wn] = co_await boost::asio::async_write(
            *s, boost::asio::buffer(out), boost::asio::as_tuple(boost::asio::use_awaitable));
        if (wec) co_return;
      }
      if (close) {
        boost::system::error_code ignored;
        s->close(ignored);
        co_return;
      }
    }
  }

  boost::asio::any_io_executor executor_;
  boost::asio::ip::tcp::acceptor acceptor_;
  Responder responder_;
  std::vector<Command> commands_;
  std::vector<std::shared_ptr<Socket>> sockets_;
  int connections_ = 0;
  size_t largest_batch_ = 0;
};

}  // namespace locksmith::testing
