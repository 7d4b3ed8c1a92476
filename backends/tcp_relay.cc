#include "backends/tcp_relay.h"

#include <array>
#include <list>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

namespace locksmith {
namespace asio = boost::asio;
using asio::ip::tcp;

struct TcpRelay::State {
  asio::any_io_executor executor;
  std::vector<RelayTarget> targets;
  std::string source_address;
  bool frozen = false;
  bool closed = false;
  std::list<std::shared_ptr<tcp::acceptor>> acceptors;
  std::list<std::weak_ptr<tcp::socket>> sockets;
  std::list<std::shared_ptr<asio::steady_timer>> thaw_waiters;

  void Thaw() {
    for (auto& t : thaw_waiters) t->cancel();
  }
};

namespace {

using StatePtr = std::shared_ptr<TcpRelay::State>;

asio::awaitable<void> WaitWhileFrozen(StatePtr state) {
  while (state->frozen && !state->closed) {
    auto timer = std::make_shared<asio::steady_timer>(state->executor,
                                                      asio::steady_timer::time_point::max());
    state->thaw_waiters.push_back(timer);
    auto it = std::prev(state->thaw_waiters.end());
    boost::system::error_code ec;
    co_await timer->async_wait(asio::redirect_error(asio::use_awaitable, ec));
    state->thaw_waiters.erase(it);
  }
}

void CloseBoth(tcp::socket& a, tcp::socket& b) {
  boost::system::error_code ec;
  a.close(ec);
  b.close(ec);
}

// Copies from -> to until either side ends; holds what it read while frozen.
asio::awaitable<void> Pump(StatePtr state, std::shared_ptr<tcp::socket> from,
                           std::shared_ptr<tcp::socket> to) {
  std::array<char, 16384> buf;
  while (!state->closed) {
    boost::system::error_code ec;
    const size_t n = co_await from->async_read_some(
        asio::buffer(buf), asio::redirect_error(asio::use_awaitable, ec));
    co_await WaitWhileFrozen(state);
    if (n > 0 && !state->closed) {
      boost::system::error_code wec;
      co_await asio::async_write(*to, asio::buffer(buf.data(), n),
                                 asio::redirect_error(asio::use_awaitable, wec));
      if (wec) break;
    }
    if (ec) break;
  }
  CloseBoth(*from, *to);
}

asio::awaitable<void> Join(StatePtr state, std::shared_ptr<tcp::socket> client,
                           RelayTarget target) {
  auto server = std::make_shared<tcp::socket>(state->executor);
  boost::system::error_code ec;
  const tcp::endpoint to(asio::ip::make_address(target.address, ec),
                         static_cast<uint16_t>(target.port));
  if (ec) co_return;
  server->open(tcp::v4(), ec);
  if (!state->source_address.empty()) {
    server->bind(tcp::endpoint(asio::ip::make_address(state->source_address, ec), 0), ec);
  }
  // Known to Close() while it connects: a connect a partition drops would
  // otherwise keep the io_context running until the kernel gives up on it.
  state->sockets.push_back(server);
  co_await server->async_connect(to, asio::redirect_error(asio::use_awaitable, ec));
  if (ec || state->closed) {
    CloseBoth(*client, *server);
    co_return;
  }
  server->set_option(tcp::no_delay(true), ec);
  client->set_option(tcp::no_delay(true), ec);
  asio::co_spawn(state->executor, Pump(state, client, server), asio::detached);
  asio::co_spawn(state->executor, Pump(state, server, client), asio::detached);
}

asio::awaitable<void> Accept(StatePtr state, std::shared_ptr<tcp::acceptor> acceptor,
                             RelayTarget target) {
  while (!state->closed) {
    auto client = std::make_shared<tcp::socket>(state->executor);
    boost::system::error_code ec;
    co_await acceptor->async_accept(*client, asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      if (state->closed || ec == asio::error::operation_aborted) co_return;
      continue;
    }
    state->sockets.push_back(client);
    std::erase_if(state->sockets, [](const auto& w) { return w.expired(); });
    asio::co_spawn(state->executor, Join(state, client, target), asio::detached);
  }
}

}  // namespace

TcpRelay::TcpRelay(asio::any_io_executor executor, std::vector<RelayTarget> targets,
                   std::string source_address)
    : state_(std::make_shared<State>()) {
  state_->executor = std::move(executor);
  state_->targets = std::move(targets);
  state_->source_address = std::move(source_address);
}

TcpRelay::~TcpRelay() { Close(); }

Result<std::vector<RelayTarget>> TcpRelay::Start() {
  std::vector<RelayTarget> local;
  for (const auto& target : state_->targets) {
    auto acceptor = std::make_shared<tcp::acceptor>(state_->executor);
    boost::system::error_code ec;
    const tcp::endpoint any(asio::ip::make_address_v4("127.0.0.1"), 0);
    acceptor->open(any.protocol(), ec);
    if (!ec) acceptor->bind(any, ec);
    if (!ec) acceptor->listen(asio::socket_base::max_listen_connections, ec);
    if (ec) return Error{"relay to " + target.address + ": cannot listen: " + ec.message()};
    local.push_back({"127.0.0.1", acceptor->local_endpoint().port()});
    state_->acceptors.push_back(acceptor);
    asio::co_spawn(state_->executor, Accept(state_, acceptor, target), asio::detached);
  }
  return local;
}

void TcpRelay::SetFrozen(bool frozen) {
  state_->frozen = frozen;
  if (!frozen) state_->Thaw();
}

bool TcpRelay::frozen() const { return state_->frozen; }

void TcpRelay::Close() {
  if (state_->closed) return;
  state_->closed = true;
  boost::system::error_code ec;
  for (auto& a : state_->acceptors) a->close(ec);
  for (auto& w : state_->sockets) {
    if (auto s = w.lock()) s->close(ec);
  }
  state_->Thaw();
}

}  // namespace locksmith
