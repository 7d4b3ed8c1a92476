#include "backends/redis_lock_client.h"

#include <array>
#include <charconv>

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "base/ceil_millis.h"

namespace locksmith {
namespace {

using Clock = RedisLockClient::Clock;

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

}  // namespace

const std::vector<std::string>& RedisRecipeNames() {
  static const std::vector<std::string> kNames = {"redis", "redis-get-set", "redis-setnx-expire",
                                                  "redis-del-unlock"};
  return kNames;
}

Result<RedisLockRecipe> RedisRecipeOf(const std::string& client) {
  constexpr RedisLockRecipe kRecipes[] = {RedisLockRecipe::kCorrect, RedisLockRecipe::kGetSet,
                                          RedisLockRecipe::kSetnxExpire,
                                          RedisLockRecipe::kDelUnlock};
  const auto& names = RedisRecipeNames();
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == client) return kRecipes[i];
  }
  return Error{"no redis lock client " + client + " (clients: " + JoinNames(names) + ")"};
}

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
    *why = kHeldByAnother;
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
    : executor_(std::move(executor)),
      options_(std::move(options)),
      connection_(options_.shared_connection
                      ? options_.shared_connection
                      : std::make_shared<RedisConnection>(
                            executor_, RedisConnectionOptions{options_.endpoint,
                                                              options_.connect_timeout})),
      tokens_(seed) {}

boost::asio::awaitable<Status> RedisLockClient::Connect() {
  Status connected = co_await connection_->Connect();
  if (!connected) co_return connected;
  // The release script's SHA1 equals kReleaseScriptSha1 on any real Redis.
  Status loaded = co_await release_.Load(*connection_, Clock::now() + options_.timeout);
  if (!loaded) co_return loaded;
  co_return co_await extend_.Load(*connection_, Clock::now() + options_.timeout);
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
  const std::string_view lease_ms(lease_buf, static_cast<size_t>(end - lease_buf));

  const Clock::time_point start = Clock::now();
  const Outcome outcome =
      co_await SendAcquire(key, token, lease_ms, start + options_.timeout, result);
  const int64_t elapsed_ms = CeilMillis(Clock::now() - start);

  result.outcome = outcome;
  result.busy = outcome == Outcome::kFail && result.error == kHeldByAnother;
  if (result.outcome != Outcome::kFail) {
    result.token = std::move(token);
    result.validity_ms = lease.count() - elapsed_ms;
  }
  if (result.outcome == Outcome::kOk && options_.wait_replicas > 0) {
    const std::string replicas = std::to_string(options_.wait_replicas);
    const std::string wait_ms = std::to_string(options_.wait_timeout.count());
    const std::array<std::string_view, 3> wait{"WAIT", replicas, wait_ms};
    RedisResponse w = co_await connection_->Command(
        wait, Clock::now() + options_.wait_timeout + options_.timeout);
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

boost::asio::awaitable<Outcome> RedisLockClient::SendAcquire(const std::string& key,
                                                            const std::string& token,
                                                            std::string_view lease_ms,
                                                            Clock::time_point deadline,
                                                            AcquireResult& result) {
  switch (options_.recipe) {
    case RedisLockRecipe::kCorrect:
      if (options_.fencing) {
        const std::string fence_key = key + ":fence";
        const std::array<std::string_view, 7> args{"EVAL", kFencedAcquireScript, "2", key,
                                                   fence_key, token, lease_ms};
        RedisResponse r = co_await connection_->Command(args, deadline);
        Outcome outcome;
        if (TransportOrErrorOutcome(r, &result.error, &outcome)) co_return outcome;
        if (r.reply.type == RedisReply::Type::kInteger) {
          result.fence = r.reply.integer;
          co_return Outcome::kOk;
        }
        if (r.reply.type == RedisReply::Type::kNil) {
          result.error = kHeldByAnother;
          co_return Outcome::kFail;
        }
        result.error = "unexpected reply to the fenced acquire: " + r.reply.Describe();
        co_return Outcome::kUnknown;
      } else {
        const std::array<std::string_view, 6> args{"SET", key, token, "NX", "PX", lease_ms};
        co_return AcquireOutcome(co_await connection_->Command(args, deadline), &result.error);
      }
    case RedisLockRecipe::kDelUnlock: {
      const std::array<std::string_view, 6> args{"SET", key, token, "NX", "PX", lease_ms};
      co_return AcquireOutcome(co_await connection_->Command(args, deadline), &result.error);
    }
    case RedisLockRecipe::kGetSet: {
      // Check, then set: another client may set the key in between.
      const std::array<std::string_view, 2> get{"GET", key};
      RedisResponse g = co_await connection_->Command(get, deadline);
      Outcome outcome;
      if (TransportOrErrorOutcome(g, &result.error, &outcome)) {
        // A GET that did or did not run wrote nothing.
        co_return Outcome::kFail;
      }
      if (g.reply.type != RedisReply::Type::kNil) {
        result.error = kHeldByAnother;
        co_return Outcome::kFail;
      }
      const std::array<std::string_view, 5> set{"SET", key, token, "PX", lease_ms};
      co_return AcquireOutcome(co_await connection_->Command(set, deadline), &result.error);
    }
    case RedisLockRecipe::kSetnxExpire: {
      const std::array<std::string_view, 3> setnx{"SETNX", key, token};
      RedisResponse r = co_await connection_->Command(setnx, deadline);
      Outcome outcome;
      if (TransportOrErrorOutcome(r, &result.error, &outcome)) co_return outcome;
      if (r.reply.type != RedisReply::Type::kInteger) {
        result.error = "unexpected reply to SETNX: " + r.reply.Describe();
        co_return Outcome::kUnknown;
      }
      if (r.reply.integer == 0) {
        result.error = kHeldByAnother;
        co_return Outcome::kFail;
      }
      // The key is ours and has no TTL until this second command lands: a
      // client that dies here leaves a key that never expires.
      ClientFaultEffect answered;
      if (fault_points_) answered = co_await fault_points_(ClientFaultPoint::kAcquireAnswered, key);
      if (answered.crashed) {
        connection_->Close();
        result.crashed = true;
        result.error = "crashed after SETNX won, before PEXPIRE";
        co_return Outcome::kUnknown;
      }
      const std::array<std::string_view, 3> expire{"PEXPIRE", key, lease_ms};
      RedisResponse e = co_await connection_->Command(expire, deadline);
      if (!e.ok() || e.reply.type != RedisReply::Type::kInteger || e.reply.integer != 1) {
        ++expire_failures_;
        result.error = "SETNX won but PEXPIRE " +
                       (e.ok() ? "replied " + e.reply.Describe() : "failed: " + e.message) +
                       ": the key may never expire";
        co_return Outcome::kUnknown;
      }
      co_return Outcome::kOk;
    }
  }
  co_return Outcome::kUnknown;
}

boost::asio::awaitable<ReleaseResult> RedisLockClient::Release(const std::string& key,
                                                               const std::string& token) {
  ReleaseResult result = co_await ReleaseOnce(key, token);
  const bool in_doubt = result.outcome == Outcome::kUnknown;
  while (result.outcome == Outcome::kUnknown && result.attempts <= options_.release_retries) {
    boost::asio::steady_timer pause(executor_, options_.release_retry_delay);
    boost::system::error_code ignored;
    co_await pause.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ignored));
    const int attempts = result.attempts + 1;
    result = co_await ReleaseOnce(key, token);
    result.attempts = attempts;
  }
  if (in_doubt && result.outcome == Outcome::kFail) {
    // Not held now; the request in doubt may be what removed it.
    result.outcome = Outcome::kUnknown;
    result.error = "a request in doubt, then " + result.error;
  }
  co_return result;
}

boost::asio::awaitable<ReleaseResult> RedisLockClient::ReleaseOnce(const std::string& key,
                                                                   const std::string& token) {
  const Clock::time_point deadline = Clock::now() + options_.timeout;
  RedisResponse r;
  if (options_.recipe == RedisLockRecipe::kDelUnlock) {
    // No owner check: whoever holds the key now loses it.
    const std::array<std::string_view, 2> del{"DEL", key};
    r = co_await connection_->Command(del, deadline);
  } else {
    const std::array<std::string_view, 1> keys{key};
    const std::array<std::string_view, 1> args{token};
    r = co_await release_.Run(*connection_, keys, args, deadline);
  }
  ReleaseResult result;
  if (fault_points_ && r.ok()) {
    (void)co_await fault_points_(ClientFaultPoint::kReleaseInFlight, key);
    if (Clock::now() > deadline) {
      // The stall outlasted the call: its deadline passed before its reply
      // was read. The reply is dropped; the connection, with no reply of
      // it left in flight, stays.
      result.outcome = Outcome::kUnknown;
      result.error = "no reply within the deadline (stalled with the reply in flight)";
      co_return result;
    }
  }
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
  RedisResponse r = co_await extend_.Run(*connection_, keys, args, start + options_.timeout);
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

void RedisLockClient::Close() {
  if (!options_.shared_connection) {
    connection_->Close();
    return;
  }
  // The shared connection stays open for the other clients; this one's later
  // calls meet a closed connection of its own (nothing sent: fail).
  auto closed = std::make_shared<RedisConnection>(executor_, RedisConnectionOptions{});
  closed->Close();
  connection_ = std::move(closed);
}

ClientFaultPoints RedisLockClient::OwnFaultPoints() const {
  ClientFaultPoints points{ClientFaultPoint::kReleaseInFlight};
  if (options_.recipe == RedisLockRecipe::kSetnxExpire) {
    points.insert(ClientFaultPoint::kAcquireAnswered);
  }
  return points;
}

std::map<std::string, int64_t> RedisLockClient::Counters() const {
  if (options_.recipe != RedisLockRecipe::kSetnxExpire) return {};
  return {{"expire_failures", static_cast<int64_t>(expire_failures_)}};
}

}  // namespace locksmith
