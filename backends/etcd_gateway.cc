#include "backends/etcd_gateway.h"

#include <future>
#include <set>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

namespace locksmith {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

// The gateway's replies are small; a larger one is no reply of a lock call.
constexpr uint64_t kMaxReplyBytes = 1 << 20;

struct EtcdGateway::Connection {
  Connection(asio::any_io_executor ex, size_t at) : stream(ex), endpoint(at) {}
  beast::tcp_stream stream;
  beast::flat_buffer buffer;
  size_t endpoint;
};

struct EtcdGateway::State {
  State(asio::any_io_executor ex, std::vector<EtcdEndpoint> e, std::string source, size_t first)
      : executor(ex),
        endpoints(std::move(e)),
        source_address(std::move(source)),
        current(endpoints.empty() ? 0 : first % endpoints.size()) {}
  asio::any_io_executor executor;
  std::vector<EtcdEndpoint> endpoints;
  std::string source_address;
  size_t current;
  bool closed = false;
  int64_t opened = 0;
  std::set<std::shared_ptr<Connection>> live;  // every open connection, busy or idle
  std::vector<std::shared_ptr<Connection>> idle;

  std::string Where(size_t at) const {
    return endpoints[at].address + ":" + std::to_string(endpoints[at].port);
  }
  void Drop(const std::shared_ptr<Connection>& c) {
    beast::error_code ignored;
    c->stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
    c->stream.close();
    live.erase(c);
  }
  // After a failure at member `at`: the next calls go to the next member.
  void MoveOn(size_t at) {
    if (at == current && !endpoints.empty()) current = (current + 1) % endpoints.size();
  }
  std::shared_ptr<Connection> TakeIdle();
  // A new connection to member `at`, or nullptr with `error` set.
  asio::awaitable<std::shared_ptr<Connection>> Open(size_t at, Clock::time_point deadline,
                                                    std::string* error);
};

namespace {

// Whether the server closed (or wrote unasked to) an idle connection: a
// request sent on it would be in doubt for nothing.
bool Stale(tcp::socket& socket) {
  beast::error_code ec;
  socket.non_blocking(true, ec);
  if (ec) return true;
  char byte = 0;
  socket.receive(asio::buffer(&byte, 1), tcp::socket::message_peek, ec);
  const bool alive = ec == asio::error::would_block;
  socket.non_blocking(false, ec);
  return !alive;
}

beast::error_code OpenAndBind(tcp::socket& socket, const std::string& source_address) {
  beast::error_code ec;
  socket.open(tcp::v4(), ec);
  if (ec || source_address.empty()) return ec;
  auto source = asio::ip::make_address(source_address, ec);
  if (!ec) socket.bind(tcp::endpoint(source, 0), ec);
  return ec;
}

}  // namespace

std::shared_ptr<EtcdGateway::Connection> EtcdGateway::State::TakeIdle() {
  while (!idle.empty()) {
    std::shared_ptr<Connection> c = std::move(idle.back());
    idle.pop_back();
    if (c->endpoint == current && !Stale(c->stream.socket())) return c;
    Drop(c);
  }
  return nullptr;
}

asio::awaitable<std::shared_ptr<EtcdGateway::Connection>> EtcdGateway::State::Open(
    size_t at, Clock::time_point deadline, std::string* error) {
  auto conn = std::make_shared<Connection>(executor, at);
  live.insert(conn);
  ++opened;
  beast::error_code ec = OpenAndBind(conn->stream.socket(), source_address);
  const EtcdEndpoint& e = endpoints[at];
  tcp::endpoint target;
  if (!ec) target = tcp::endpoint(asio::ip::make_address(e.address, ec), static_cast<uint16_t>(e.port));
  if (!ec) {
    conn->stream.expires_at(deadline);
    std::tie(ec) =
        co_await conn->stream.async_connect(target, asio::as_tuple(asio::use_awaitable));
  }
  if (!ec && closed) ec = asio::error::operation_aborted;
  if (!ec) co_return conn;
  Drop(conn);
  MoveOn(at);
  *error = "cannot connect to etcd at " + Where(at) + ": " + ec.message();
  co_return nullptr;
}

std::string EtcdCall::Why() const {
  if (fate == Fate::kAnswered) return reply.error ? reply.error->message : "ok";
  return error;
}

EtcdGateway::EtcdGateway(asio::any_io_executor executor, std::vector<EtcdEndpoint> endpoints,
                         std::string source_address, size_t first)
    : state_(std::make_shared<State>(executor, std::move(endpoints), std::move(source_address),
                                     first)) {}

EtcdGateway::~EtcdGateway() { Close(); }

int64_t EtcdGateway::connections_opened() const { return state_->opened; }

void EtcdGateway::Close() {
  if (state_->closed) return;
  state_->closed = true;
  state_->idle.clear();
  while (!state_->live.empty()) state_->Drop(*state_->live.begin());
}

asio::awaitable<EtcdCall> EtcdGateway::Call(std::string path, std::string body,
                                            Clock::time_point deadline) {
  std::shared_ptr<State> state = state_;
  EtcdCall call;
  if (state->closed || state->endpoints.empty()) {
    call.error = "the client is closed";
    co_return call;
  }
  std::shared_ptr<Connection> conn = state->TakeIdle();
  const size_t at = conn ? conn->endpoint : state->current;
  call.member = state->Where(at);
  if (!conn) {
    conn = co_await state->Open(at, deadline, &call.error);
    if (!conn) co_return call;
  }
  http::request<http::string_body> request{http::verb::post, path, 11};
  request.set(http::field::host, call.member);
  request.set(http::field::content_type, "application/json");
  request.keep_alive(true);
  request.body() = std::move(body);
  request.prepare_payload();
  conn->stream.expires_at(deadline);
  auto [write_ec, written] =
      co_await http::async_write(conn->stream, request, asio::as_tuple(asio::use_awaitable));
  (void)written;
  http::response_parser<http::string_body> parser;
  parser.body_limit(kMaxReplyBytes);
  beast::error_code ec = write_ec;
  if (!ec) {
    std::tie(ec, written) = co_await http::async_read(conn->stream, conn->buffer, parser,
                                                      asio::as_tuple(asio::use_awaitable));
  }
  if (ec || state->closed) {
    state->Drop(conn);
    state->MoveOn(at);
    call.fate = EtcdCall::Fate::kNoAnswer;
    call.error = "no reply from etcd at " + call.member + ": " +
                 (state->closed ? std::string("the client closed") : ec.message());
    co_return call;
  }
  const auto& response = parser.get();
  auto reply = ParseEtcdReply(static_cast<int>(response.result_int()), response.body());
  if (!reply) {
    state->Drop(conn);
    state->MoveOn(at);
    call.fate = EtcdCall::Fate::kNoAnswer;
    call.error = reply.error();
    co_return call;
  }
  call.fate = EtcdCall::Fate::kAnswered;
  call.reply = std::move(*reply);
  if (call.reply.error && EtcdCertainlyNotApplied(*call.reply.error) &&
      !EtcdLeaseNotFound(*call.reply.error)) {
    state->MoveOn(at);  // this member cannot serve now (no leader)
  }
  if (response.keep_alive() && at == state->current) {
    state->idle.push_back(std::move(conn));
  } else {
    state->Drop(conn);
  }
  co_return call;
}

Result<EtcdReply> EtcdPostNow(const EtcdEndpoint& endpoint, const std::string& path,
                              const std::string& body, std::chrono::milliseconds timeout) {
  asio::io_context io;
  EtcdGateway gateway(io.get_executor(), {endpoint}, "", 0);
  auto future = asio::co_spawn(
      io, gateway.Call(path, body, EtcdGateway::Clock::now() + timeout), asio::use_future);
  io.run();
  EtcdCall call = future.get();
  if (call.fate != EtcdCall::Fate::kAnswered) return Error{call.error};
  return std::move(call.reply);
}

}  // namespace locksmith
