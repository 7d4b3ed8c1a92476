#include "nemesis/toxic_relay.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <deque>
#include <list>
#include <random>
#include <set>
#include <vector>

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
using Clock = std::chrono::steady_clock;

namespace {

// getsockopt(SOL_IP, SO_ORIGINAL_DST) (linux/netfilter_ipv4.h, whose
// headers clash with the C library's).
constexpr int kSoOriginalDst = 80;
// A direction holds at most this much before it stops reading.
constexpr size_t kMaxHeldBytes = 4 << 20;
// What one splice moves at most.
constexpr size_t kPipeBytes = 1 << 20;

struct Chunk {
  Clock::time_point due;
  std::vector<char> bytes;
};

// One direction of one connection: what was read and not yet written.
struct Flow {
  bool upstream = true;
  std::deque<Chunk> held;
  size_t held_bytes = 0;
  Clock::time_point last_due{};
  bool reading_done = false;
  bool writing = false;  // a write to the other side is under way
  std::shared_ptr<asio::steady_timer> wake;  // the writer's wait; cancelled to wake it
  int pipe[2] = {-1, -1};  // splice's, while the flow is untoxic; -1: none (yet)

  Flow() = default;
  Flow(const Flow&) = delete;
  Flow& operator=(const Flow&) = delete;
  ~Flow() {
    for (int fd : pipe) {
      if (fd >= 0) ::close(fd);
    }
  }
};

struct Connection {
  std::shared_ptr<tcp::socket> client;  // accepted
  std::shared_ptr<tcp::socket> server;  // onward
  std::string client_address;            // where it came from
  std::string destination_address;       // where it was going
  Flow up, down;
  bool closed = false;
};

using ConnectionPtr = std::shared_ptr<Connection>;

void Reset(tcp::socket& socket) {
  boost::system::error_code ec;
  if (!socket.is_open()) return;
  socket.set_option(asio::socket_base::linger(true, 0), ec);  // close sends an RST
  socket.close(ec);
}

}  // namespace

nlohmann::json RelayCounts::ToJson() const {
  return {{"connections", connections}, {"connected", connected}, {"bytes", bytes},
          {"delayed_bytes", delayed_bytes}, {"resets", resets}};
}

struct ToxicRelay::State {
  asio::any_io_executor executor;
  SocketMaker make_socket;
  std::optional<Destination> fixed;
  std::mt19937_64 rng;
  LinkToxics toxics;
  std::set<std::string> slow_peers;  // whose connections the toxics hit
  RelayCounts counts;
  bool closed = false;
  std::shared_ptr<tcp::acceptor> acceptor;
  std::list<std::weak_ptr<Connection>> connections;

  bool Slowed(const Connection& c) const {
    return slow_peers.contains(c.client_address) || slow_peers.contains(c.destination_address);
  }
  const Toxics& Of(const Connection& c, const Flow& flow) const {
    static const Toxics kNone;
    if (!Slowed(c)) return kNone;
    return flow.upstream ? toxics.upstream : toxics.downstream;
  }
  void ResetConnection(Connection& c) {
    c.closed = true;
    Reset(*c.client);
    Reset(*c.server);
    for (Flow* f : {&c.up, &c.down}) {
      if (f->wake) f->wake->cancel();
    }
  }
  void WakeAll() {
    for (auto& w : connections) {
      if (auto c = w.lock()) {
        for (Flow* f : {&c->up, &c->down}) {
          if (f->wake) f->wake->cancel();
        }
      }
    }
  }
};

namespace {

using StatePtr = std::shared_ptr<ToxicRelay::State>;

enum class Spliced { kMoved, kNotNow, kEnded };

// The untoxic path: one read's worth moved from `from` to `to` through the
// flow's pipe by splice(2), never copied to user space. kNotNow: toxics came
// while it waited (or the kernel had nothing after all): read the usual way.
asio::awaitable<Spliced> SpliceOnce(StatePtr state, ConnectionPtr c, Flow& flow,
                                    tcp::socket& from, tcp::socket& to) {
  boost::system::error_code ec;
  co_await from.async_wait(tcp::socket::wait_read, asio::redirect_error(asio::use_awaitable, ec));
  if (ec || c->closed) co_return Spliced::kEnded;
  if (!flow.held.empty() || flow.writing || !state->Of(*c, flow).Harmless()) {
    co_return Spliced::kNotNow;
  }
  const ssize_t n = splice(from.native_handle(), nullptr, flow.pipe[1], nullptr, kPipeBytes,
                           SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
  if (n == 0) co_return Spliced::kEnded;
  if (n < 0) co_return errno == EAGAIN || errno == EINTR ? Spliced::kNotNow : Spliced::kEnded;
  state->counts.bytes += n;
  flow.writing = true;
  for (ssize_t left = n; left > 0;) {
    const ssize_t w = splice(flow.pipe[0], nullptr, to.native_handle(), nullptr,
                             static_cast<size_t>(left), SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
    if (w > 0) {
      left -= w;
      continue;
    }
    if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
      co_await to.async_wait(tcp::socket::wait_write,
                             asio::redirect_error(asio::use_awaitable, ec));
      if (!ec && !c->closed) continue;
    }
    flow.writing = false;
    co_return Spliced::kEnded;
  }
  flow.writing = false;
  co_return Spliced::kMoved;
}

// Reads `from` into `flow`'s held chunks, each due when the toxics say; with
// no toxics and nothing held, writes what it read to `to` itself (no copy,
// no wake-up: the relay's whole cost when a link is not slowed).
asio::awaitable<void> ReadInto(StatePtr state, ConnectionPtr c, Flow& flow,
                               std::shared_ptr<tcp::socket> from,
                               std::shared_ptr<tcp::socket> to) {
  std::array<char, 65536> buf;
  while (!c->closed) {
    if (flow.held_bytes > kMaxHeldBytes) {
      // Back-pressure: wait for the writer to drain (looked at every 5 ms).
      auto wait = std::make_shared<asio::steady_timer>(state->executor,
                                                       std::chrono::milliseconds(5));
      boost::system::error_code ec;
      co_await wait->async_wait(asio::redirect_error(asio::use_awaitable, ec));
      continue;
    }
    if (flow.pipe[0] >= 0 && flow.held.empty() && !flow.writing &&
        state->Of(*c, flow).Harmless()) {
      const Spliced spliced = co_await SpliceOnce(state, c, flow, *from, *to);
      if (spliced == Spliced::kEnded) break;
      if (spliced == Spliced::kMoved) continue;
    }
    boost::system::error_code ec;
    const size_t n = co_await from->async_read_some(
        asio::buffer(buf), asio::redirect_error(asio::use_awaitable, ec));
    if (n > 0 && flow.held.empty() && !flow.writing && state->Of(*c, flow).Harmless()) {
      state->counts.bytes += static_cast<int64_t>(n);
      flow.writing = true;
      boost::system::error_code wec;
      co_await asio::async_write(*to, asio::buffer(buf.data(), n),
                                 asio::redirect_error(asio::use_awaitable, wec));
      flow.writing = false;
      if (wec) break;
    } else if (n > 0) {
      const Toxics& toxics = state->Of(*c, flow);
      const Clock::time_point now = Clock::now();
      const Clock::time_point due =
          toxics.Harmless() ? now : DeliveryTime(toxics, n, now, flow.last_due, state->rng);
      flow.last_due = due;
      state->counts.bytes += static_cast<int64_t>(n);
      if (!toxics.Harmless()) state->counts.delayed_bytes += static_cast<int64_t>(n);
      flow.held.push_back({due, std::vector<char>(buf.data(), buf.data() + n)});
      flow.held_bytes += n;
      flow.wake->cancel();
    }
    if (ec) break;
  }
  flow.reading_done = true;
  flow.wake->cancel();
}

// Writes `flow`'s chunks to `to` as each falls due (at once once the toxics
// are cleared; never while the direction stalls).
asio::awaitable<void> WriteFrom(StatePtr state, ConnectionPtr c, Flow& flow,
                                std::shared_ptr<tcp::socket> to) {
  while (!c->closed) {
    const Toxics& toxics = state->Of(*c, flow);
    if (flow.held.empty() && flow.reading_done) break;
    Clock::time_point until = Clock::time_point::max();
    if (!flow.held.empty() && !toxics.stall) {
      until = toxics.Harmless() ? Clock::now() : flow.held.front().due;
    }
    if (until > Clock::now()) {
      flow.wake->expires_at(until);
      boost::system::error_code ec;
      co_await flow.wake->async_wait(asio::redirect_error(asio::use_awaitable, ec));
      continue;
    }
    Chunk chunk = std::move(flow.held.front());
    flow.held.pop_front();
    flow.held_bytes -= chunk.bytes.size();
    boost::system::error_code ec;
    flow.writing = true;
    co_await asio::async_write(*to, asio::buffer(chunk.bytes),
                               asio::redirect_error(asio::use_awaitable, ec));
    flow.writing = false;
    if (ec) break;
  }
  // One side ended: so does the connection (both sockets closed).
  if (!c->closed) {
    c->closed = true;
    boost::system::error_code ec;
    c->client->close(ec);
    c->server->close(ec);
    c->up.wake->cancel();
    c->down.wake->cancel();
  }
}

Result<ToxicRelay::Destination> OriginalDestination(tcp::socket& socket) {
  sockaddr_in original{};
  socklen_t length = sizeof original;
  if (getsockopt(socket.native_handle(), SOL_IP, kSoOriginalDst, &original, &length) != 0) {
    return Error{"no original destination (was the connection redirected?)"};
  }
  char text[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &original.sin_addr, text, sizeof text);
  return ToxicRelay::Destination{text, ntohs(original.sin_port)};
}

// Joins an accepted connection to its destination, within kConnectTimeout.
asio::awaitable<void> Join(StatePtr state, ConnectionPtr c) {
  auto destination = state->fixed ? Result<ToxicRelay::Destination>(*state->fixed)
                                  : OriginalDestination(*c->client);
  if (destination) c->destination_address = destination->address;
  if (destination && state->toxics.reset && state->Slowed(*c)) {
    ++state->counts.resets;
    state->ResetConnection(*c);
    co_return;
  }
  auto fd = destination ? state->make_socket() : Result<int>(Error{destination.error()});
  boost::system::error_code ec;
  if (fd) {
    const int mark = kRelayMark;
    (void)setsockopt(*fd, SOL_SOCKET, SO_MARK, &mark, sizeof mark);
    c->server->assign(tcp::v4(), *fd, ec);
    if (ec) ::close(*fd);
  }
  if (!fd || ec) {
    state->ResetConnection(*c);
    co_return;
  }
  const tcp::endpoint to(asio::ip::make_address_v4(destination->address, ec),
                         static_cast<uint16_t>(destination->port));
  asio::steady_timer deadline(state->executor, kConnectTimeout);
  deadline.async_wait([server = c->server](boost::system::error_code e) {
    boost::system::error_code ignored;
    if (!e) server->close(ignored);  // the connect below then fails
  });
  co_await c->server->async_connect(to, asio::redirect_error(asio::use_awaitable, ec));
  deadline.cancel();
  if (ec || c->closed) {
    state->ResetConnection(*c);
    co_return;
  }
  ++state->counts.connected;
  c->server->set_option(tcp::no_delay(true), ec);
  c->client->set_option(tcp::no_delay(true), ec);
  c->server->native_non_blocking(true, ec);
  c->client->native_non_blocking(true, ec);
  for (Flow* f : {&c->up, &c->down}) {
    // No pipe: every byte takes the read-and-write path instead.
    if (!ec && pipe2(f->pipe, O_NONBLOCK | O_CLOEXEC) != 0) f->pipe[0] = f->pipe[1] = -1;
    // A larger pipe moves more per splice (fewer wake-ups); the default
    // 64 KB stays when the system refuses.
    if (f->pipe[0] >= 0) (void)fcntl(f->pipe[1], F_SETPIPE_SZ, static_cast<int>(kPipeBytes));
  }
  asio::co_spawn(state->executor, ReadInto(state, c, c->up, c->client, c->server), asio::detached);
  asio::co_spawn(state->executor, WriteFrom(state, c, c->up, c->server), asio::detached);
  asio::co_spawn(state->executor, ReadInto(state, c, c->down, c->server, c->client), asio::detached);
  asio::co_spawn(state->executor, WriteFrom(state, c, c->down, c->client), asio::detached);
}

asio::awaitable<void> Accept(StatePtr state) {
  while (!state->closed) {
    auto c = std::make_shared<Connection>();
    c->client = std::make_shared<tcp::socket>(state->executor);
    c->server = std::make_shared<tcp::socket>(state->executor);
    c->down.upstream = false;
    for (Flow* f : {&c->up, &c->down}) {
      f->wake = std::make_shared<asio::steady_timer>(state->executor);
    }
    boost::system::error_code ec;
    co_await state->acceptor->async_accept(*c->client,
                                           asio::redirect_error(asio::use_awaitable, ec));
    if (state->closed || ec == asio::error::operation_aborted) co_return;
    if (ec) continue;
    ++state->counts.connections;
    std::erase_if(state->connections, [](const auto& w) { return w.expired(); });
    state->connections.push_back(c);
    boost::system::error_code peer_ec;
    const tcp::endpoint peer = c->client->remote_endpoint(peer_ec);
    if (!peer_ec) c->client_address = peer.address().to_string();
    asio::co_spawn(state->executor, Join(state, c), asio::detached);
  }
}

}  // namespace

ToxicRelay::ToxicRelay(asio::any_io_executor executor, SocketMaker make_socket, uint64_t seed,
                       std::optional<Destination> fixed_destination)
    : state_(std::make_shared<State>()) {
  state_->executor = std::move(executor);
  state_->make_socket = std::move(make_socket);
  state_->fixed = std::move(fixed_destination);
  state_->rng.seed(seed);
}

ToxicRelay::~ToxicRelay() { Close(); }

Result<int> ToxicRelay::Start() {
  auto fd = state_->make_socket();
  if (!fd) return Error{"relay: " + fd.error()};
  auto acceptor = std::make_shared<tcp::acceptor>(state_->executor);
  boost::system::error_code ec;
  acceptor->assign(tcp::v4(), *fd, ec);
  if (ec) {
    ::close(*fd);
    return Error{"relay: " + ec.message()};
  }
  acceptor->set_option(tcp::acceptor::reuse_address(true), ec);
  acceptor->bind(tcp::endpoint(tcp::v4(), 0), ec);
  if (!ec) acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return Error{"relay: cannot listen: " + ec.message()};
  state_->acceptor = acceptor;
  asio::co_spawn(state_->executor, Accept(state_), asio::detached);
  return static_cast<int>(acceptor->local_endpoint().port());
}

void ToxicRelay::SetToxics(const LinkToxics& toxics, std::set<std::string> slow_peers) {
  state_->toxics = toxics;
  state_->slow_peers = std::move(slow_peers);
  if (toxics.reset) {
    for (auto& w : state_->connections) {
      auto c = w.lock();
      if (c && !c->closed && state_->Slowed(*c)) {
        ++state_->counts.resets;
        state_->ResetConnection(*c);
      }
    }
  }
  state_->WakeAll();  // held chunks fall due by the new toxics
}

RelayCounts ToxicRelay::Counts() const { return state_->counts; }

void ToxicRelay::Close() {
  if (state_->closed) return;
  state_->closed = true;
  boost::system::error_code ec;
  if (state_->acceptor) state_->acceptor->close(ec);
  for (auto& w : state_->connections) {
    if (auto c = w.lock()) state_->ResetConnection(*c);
  }
}

}  // namespace locksmith
