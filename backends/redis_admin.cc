#include "backends/redis_admin.h"

#include <charconv>
#include <optional>
#include <string_view>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

namespace locksmith {
namespace asio = boost::asio;

namespace {

// Runs `body` on a fresh connection to `endpoint`, then closes it. The
// connection's own deadlines end every wait; the io_context's bound is only
// a safety net against a bug there.
template <typename Body>
void WithConnection(const RedisEndpoint& endpoint, std::chrono::milliseconds timeout, Body body) {
  asio::io_context io;
  // Connect + AUTH get half the time, so Connect()'s PING (which gets as long
  // again) still ends within `timeout`.
  RedisConnectionOptions options{endpoint, std::max(timeout / 2, std::chrono::milliseconds(1))};
  RedisConnection connection(io.get_executor(), options);
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        co_await body(connection);
        connection.Close();
      },
      asio::detached);
  io.run_for(timeout + std::chrono::seconds(5));
}

}  // namespace

Result<RedisReply> RedisCommandOnce(const RedisEndpoint& endpoint,
                                    const std::vector<std::string>& args,
                                    std::chrono::milliseconds timeout) {
  std::optional<RedisResponse> response;
  const std::vector<std::string_view> views(args.begin(), args.end());
  const auto deadline = RedisConnection::Clock::now() + timeout;
  WithConnection(endpoint, timeout, [&](RedisConnection& c) -> asio::awaitable<void> {
    response = co_await c.Command(views, deadline);
  });
  if (!response) {
    return Error{"no reply from " + endpoint.host + ":" + std::to_string(endpoint.port)};
  }
  if (!response->ok()) return Error{response->message};
  return response->reply;
}

Result<int64_t> ParseRedisTime(const RedisReply& reply) {
  auto bad = [&] { return Error{"TIME answered " + reply.Describe()}; };
  if (reply.type != RedisReply::Type::kArray || reply.elements.size() != 2) return bad();
  int64_t parts[2] = {};
  for (int i = 0; i < 2; ++i) {
    const RedisReply& e = reply.elements[i];
    if (e.type != RedisReply::Type::kString || e.str.empty()) return bad();
    auto [end, ec] = std::from_chars(e.str.data(), e.str.data() + e.str.size(), parts[i]);
    if (ec != std::errc() || end != e.str.data() + e.str.size() || parts[i] < 0) return bad();
  }
  if (parts[1] >= 1'000'000) return bad();
  return parts[0] * 1'000'000'000 + parts[1] * 1'000;
}

Result<int64_t> RedisTimeNs(const RedisEndpoint& endpoint, std::chrono::milliseconds timeout) {
  auto reply = RedisCommandOnce(endpoint, {"TIME"}, timeout);
  if (!reply) return Error{"TIME: " + reply.error()};
  return ParseRedisTime(*reply);
}

Result<int64_t> ParseInfoServerTime(const RedisReply& reply) {
  auto bad = [&] {
    return Error{"INFO server answered no server_time_usec: " + reply.Describe().substr(0, 200)};
  };
  if (reply.type != RedisReply::Type::kString) return bad();
  static constexpr std::string_view kField = "server_time_usec:";
  const size_t at = reply.str.find(kField);
  if (at == std::string::npos || (at > 0 && reply.str[at - 1] != '\n')) return bad();
  const char* begin = reply.str.data() + at + kField.size();
  const char* end = reply.str.data() + reply.str.size();
  int64_t usec = -1;
  auto [stop, ec] = std::from_chars(begin, end, usec);
  if (ec != std::errc() || stop == begin || usec < 0 || (stop != end && *stop != '\r')) {
    return bad();
  }
  return usec * 1'000;
}

Result<int64_t> RedisInfoTimeNs(const RedisEndpoint& endpoint, std::chrono::milliseconds timeout) {
  auto reply = RedisCommandOnce(endpoint, {"INFO", "server"}, timeout);
  if (!reply) return Error{"INFO server: " + reply.error()};
  return ParseInfoServerTime(*reply);
}

Status RedisPing(const RedisEndpoint& endpoint, std::chrono::milliseconds timeout) {
  std::optional<Status> status;
  WithConnection(endpoint, timeout, [&](RedisConnection& c) -> asio::awaitable<void> {
    status = co_await c.Connect();
  });
  if (!status) {
    return Error{"no reply from " + endpoint.host + ":" + std::to_string(endpoint.port)};
  }
  return *status;
}

}  // namespace locksmith
