// FakeEtcdGateway (test-only): an in-process HTTP/1.1 server on 127.0.0.1
// that stands for an etcd member's JSON gateway. Each POST is recorded (its
// path and JSON body) and answered with whatever the test's responder
// returns: a status and a body, or no answer at all (the connection stays
// open and silent, as a member that lost its quorum). Keep-alive
// connections serve request after request. Runs on the test's io_context.
// Thread-safety: none (one io_context thread).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <nlohmann/json.hpp>

namespace locksmith::testing {

class FakeEtcdGateway {
 public:
  struct Reply {
    int status = 200;
    std::string body = "{}";
    bool answer = true;  // false: say nothing, keep the connection open
  };
  using Responder = std::function<Reply(const std::string& path, const nlohmann::json& body)>;
  struct Request {
    std::string path;
    nlohmann::json body;
  };

  FakeEtcdGateway(boost::asio::any_io_executor executor, Responder responder)
      : executor_(executor),
        acceptor_(executor, {boost::asio::ip::make_address("127.0.0.1"), 0}),
        responder_(std::move(responder)) {
    boost::asio::co_spawn(executor_, AcceptLoop(), boost::asio::detached);
  }

  uint16_t port() const { return acceptor_.local_endpoint().port(); }
  const std::vector<Request>& requests() const { return requests_; }
  std::vector<std::string> paths() const {
    std::vector<std::string> out;
    for (const auto& r : requests_) out.push_back(r.path);
    return out;
  }

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
      auto s = std::make_shared<Socket>(std::move(socket));
      sockets_.push_back(s);
      boost::asio::co_spawn(executor_, Session(s), boost::asio::detached);
    }
  }

  boost::asio::awaitable<void> Session(std::shared_ptr<Socket> s) {
    namespace http = boost::beast::http;
    boost::beast::flat_buffer buffer;
    for (;;) {
      http::request<http::string_body> request;
      auto [ec, n] = co_await http::async_read(*s, buffer, request,
                                               boost::asio::as_tuple(boost::asio::use_awaitable));
      if (ec) co_return;
      const std::string path(request.target());
      nlohmann::json body = nlohmann::json::parse(request.body(), nullptr, false);
      requests_.push_back({path, body});
      const Reply reply = responder_(path, body);
      if (!reply.answer) co_return;  // the socket stays open in sockets_
      http::response<http::string_body> response{static_cast<http::status>(reply.status), 11};
      response.set(http::field::content_type, "application/json");
      response.keep_alive(request.keep_alive());
      response.body() = reply.body;
      response.prepare_payload();
      auto [wec, wn] = co_await http::async_write(
          *s, response, boost::asio::as_tuple(boost::asio::use_awaitable));
      if (wec) co_return;
    }
  }

  boost::asio::any_io_executor executor_;
  boost::asio::ip::tcp::acceptor acceptor_;
  Responder responder_;
  std::vector<std::shared_ptr<Socket>> sockets_;
  std::vector<Request> requests_;
};

}  // namespace locksmith::testing
