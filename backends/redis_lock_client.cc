#include "backends/redis_lock_client.h"

#include <array>
#include <charconv>

namespace locksmith {
namespace {

using Clock = std::chrono::steady_clock;

// Codes Redis replies with when it refused a command before running it (see
// the table in the header for why each is definite).
constexpr std::array<std::string_view, 17> kDefiniteErrors = {
    "NOAUTH",   "WRONGPASS", "NOPERM",   "LOADING",    "BUSY",       "MASTERDOWN",
    "READONLY", "OOM",       "MISCONF",  "NOREPLICAS", "NOSCRIPT",   "WRONGTYPE",
    "MOVED",    "ASK",       "TRYAGAIN", "CROSSSLOT",  "CLUSTERDOWN"};

// Common to every call: transport errors and error replies.
bool TransportOrErrorOutcome(const RedisResponse& response, std::string* why, Outcome* outcome) {
  std::optional<Outcome> o = CallErrorOutcome(response, why);
  if (o) *outcome = *o;
  return o.has_value();
}

int64_t CeilMillis(Clock::duration d) {
  return std::chrono::ceil<std::chrono::milliseconds>(d).count();
}

}  // namespace

std::optional<Outcome> CallErrorOutcome(const RedisResponse& response, std::string* why) {
  switch (response.error) {
    case RedisCallError::kNone:
      break;
    case RedisCallError::kNotSent:
      *why = "not sent: " + response.message;
      return Outcome::kFail;
    case RedisCallError::kInDoubt:
    case RedisCallError::kClosed:
      *why = response.message;
      return Outcome::kUnknown;
  }
  if (response.reply.type == RedisReply::Type::kError) {
    *why = response.reply.str;
    return IsDefiniteRedisError(response.reply) ? Outcome::kFail : Outcome::kUnknown;
  }
  return std::nullopt;
}

bool IsDefiniteRedisError(const RedisReply& reply) {
  for (std::string_view code : kDefiniteErrors) {
    if (reply.IsError(code)) return true;
  }
  return false;
}

Outcome AcquireOutcome(const RedisResponse& response, std::string* why) {
  Outcome outcome;
  if (TransportOrErrorOutcome(response, why, &outcome)) return outcome;
  if (response.reply.IsStatus("OK")) return Outcome::kOk;
  if (response.reply.type == RedisReply::Type::kNil) {
    *why = "held by another client";
    return Outcome::kFail;
  }
  *why = "unexpected reply to SET: " + response.reply.Describe();
  return Outcome::kUnknown;
}

Outcome ReleaseOutcome(const RedisResponse& response, std::string* why) {
  Outcome outcome;
  if (TransportOrErrorOutcome(response, why, &outcome)) return outcome;
  if (response.reply.type == RedisReply::Type::kInteger) {
    if (response.reply.integer == 1) return Outcome::kOk;
    if (response.reply.integer == 0) {
      *why = "not held by this token (expired or taken over)";
      return Outcome::kFail;
    }
  }
  *why = "unexpected reply to release: " + response.reply.Describe();
  return Outcome::kUnknown;
}

RedisLockClient::RedisLockClient(boost::asio::any_io_executor executor,
                                 RedisLockClientOptions options, uint64_t seed)
    : options_(std::move(options)),
      connection_(std::move(executor),
                  RedisConnectionOptions{options_.endpoint, options_.connect_timeout}),
      tokens_(seed) {}

boost::asio::awaitable<Status> RedisLockClient::Connect() {
  Status connected = co_await connection_.Connect();
  if (!connected) co_return connected;
  // The release script's SHA1 equals kReleaseScriptSha1 on any real Redis.
  Status loaded = co_await release_.Load(connection_, Clock::now() + options_.timeout);
  if (!loaded) co_return loaded;
  co_return co_await extend_.Load(connection_, Clock::now() + options_.timeout);
}

boost::asio::awaitable<AcquireResult> RedisLockClient::Acquire(const std::string& key,
                                                               std::chrono::milliseconds lease) {
  AcquireResult result;
  if (lease.count() < 1) {
    result.outcome = Outcome::kFail;
    result.error = "lease must be at least 1 ms";
    co_return result;
  }
  std::string token = tokens_.Next();
  char lease_buf[24];
  auto [end, ec] = std::to_chars(lease_buf, lease_buf + sizeof(lease_buf), lease.count());
  (void)ec;
  const std::array<std::string_view, 6> args{
      "SET", key,  token,
      "NX",  "PX", std::string_view(lease_buf, static_cast<size_t>(end - lease_buf))};

  const Clock::time_point start = Clock::now();
  RedisResponse r = co_await connection_.Command(args, start + options_.timeout);
  const int64_t elapsed_ms = CeilMillis(Clock::now() - start);

  result.outcome = AcquireOutcome(r, &result.error);
  if (result.outcome != Outcome::kFail) {
    result.token = std::move(token);
    result.validity_ms = lease.count() - elapsed_ms;
  }
  if (result.outcome == Outcome::kOk && options_.wait_replicas > 0) {
    const std::string replicas = std::to_string(options_.wait_replicas);
    const std::string wait_ms = std::to_string(options_.wait_timeout.count());
    const std::array<std::string_view, 3> wait{"WAIT", replicas, wait_ms};
    RedisResponse w =
        co_await connection_.Command(wait, Clock::now() + options_.wait_timeout + options_.timeout);
    result.validity_ms = lease.count() - CeilMillis(Clock::now() - start);
    if (!w.ok() || w.reply.type != RedisReply::Type::kInteger ||
        w.reply.integer < options_.wait_replicas) {
      const std::string acked = w.ok() && w.reply.type == RedisReply::Type::kInteger
                                    ? std::to_string(w.reply.integer)
                                    : "?";
      (void)co_await Release(key, result.token);
      result.outcome = Outcome::kUnknown;
      result.error = "WAIT: " + acked + " of " + replicas + " replicas acknowledged; released";
    }
  }
  co_return result;
}

boost::asio::awaitable<ReleaseResult> RedisLockClient::Release(const std::string& key,
                                                               const std::string& token) {
  const std::array<std::string_view, 1> keys{key};
  const std::array<std::string_view, 1> args{token};
  RedisResponse r = co_await release_.Run(connection_, keys, args, Clock::now() + options_.timeout);
  ReleaseResult result;
  result.outcome = ReleaseOutcome(r, &result.error);
  co_return result;
}

boost::asio::awaitable<ExtendResult> RedisLockClient::Extend(const std::string& key,
                                                             const std::string& token,
                                                             std::chrono::milliseconds lease) {
  ExtendResult result;
  if (lease.count() < 1) {
    result.outcome = Outcome::kFail;
    result.error = "lease must be at least 1 ms";
    co_return result;
  }
  const std::string lease_text = std::to_string(lease.count());
  const std::array<std::string_view, 1> keys{key};
  const std::array<std::string_view, 2> args{token, lease_text};
  const Clock::time_point start = Clock::now();
  RedisResponse r = co_await extend_.Run(connection_, keys, args, start + options_.timeout);
  if (std::optional<Outcome> failed = CallErrorOutcome(r, &result.error)) {
    result.outcome = *failed;
  } else if (r.reply.type == RedisReply::Type::kInteger && r.reply.integer == 1) {
    result.outcome = Outcome::kOk;
    result.validity_ms = lease.count() - CeilMillis(Clock::now() - start);
  } else if (r.reply.type == RedisReply::Type::kInteger && r.reply.integer == 0) {
    result.outcome = Outcome::kFail;
    result.not_held = true;
    result.error = "not held by this token (expired or taken over)";
  } else {
    result.outcome = Outcome::kUnknown;
    result.error = "unexpected reply to extend: " + r.reply.Describe();
  }
  co_return result;
}

void RedisLockClient::Close() { connection_.Close(); }

}  // namespace locksmith
