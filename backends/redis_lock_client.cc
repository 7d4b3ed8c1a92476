#include "backends/redis_lock_client.h"

#include <array>
#include <charconv>

namespace locksmith {
namespace {

using Clock = RedisLockClient::Clock;

// Codes Redis replies with when it refused a command before running it (see
// the table in the header for why each is definite).
constexpr std::array<std::string_view, 17> kDefiniteErrors = {
    "NOAUTH",   "WRONGPASS", "NOPERM",   "LOADING",    "BUSY",       "MASTERDOWN",
    "READONLY", "OOM",       "MISCONF",  "NOREPLICAS", "NOSCRIPT",   "WRONGTYPE",
    "MOVED",    "ASK",       "TRYAGAIN", "CROSSSLOT",  "CLUSTERDOWN"};

// Common to both calls: transport errors and error replies.
bool TransportOrErrorOutcome(const RedisResponse& response, std::string* why, Outcome* outcome) {
  switch (response.error) {
    case RedisCallError::kNone:
      break;
    case RedisCallError::kNotSent:
      *why = "not sent: " + response.message;
      *outcome = Outcome::kFail;
      return true;
    case RedisCallError::kInDoubt:
    case RedisCallError::kClosed:
      *why = response.message;
      *outcome = Outcome::kUnknown;
      return true;
  }
  if (response.reply.type == RedisReply::Type::kError) {
    *why = response.reply.str;
    *outcome = IsDefiniteRedisError(response.reply) ? Outcome::kFail : Outcome::kUnknown;
    return true;
  }
  return false;
}

int64_t CeilMillis(Clock::duration d) {
  return std::chrono::ceil<std::chrono::milliseconds>(d).count();
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
  const std::array<std::string_view, 3> args{"SCRIPT", "LOAD", kReleaseScript};
  RedisResponse r = co_await connection_.Command(args, Clock::now() + options_.timeout);
  if (!r.ok()) co_return Error{"SCRIPT LOAD: " + r.message};
  if (r.reply.type != RedisReply::Type::kString) {
    co_return Error{"SCRIPT LOAD: unexpected reply " + r.reply.Describe()};
  }
  script_sha_ = r.reply.str;  // equals kReleaseScriptSha1 on any real Redis
  co_return OkStatus();
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
        RedisResponse r = co_await connection_.Command(args, deadline);
        Outcome outcome;
        if (TransportOrErrorOutcome(r, &result.error, &outcome)) co_return outcome;
        if (r.reply.type == RedisReply::Type::kInteger) {
          result.fence = r.reply.integer;
          co_return Outcome::kOk;
        }
        if (r.reply.type == RedisReply::Type::kNil) {
          result.error = "held by another client";
          co_return Outcome::kFail;
        }
        result.error = "unexpected reply to the fenced acquire: " + r.reply.Describe();
        co_return Outcome::kUnknown;
      } else {
        const std::array<std::string_view, 6> args{"SET", key, token, "NX", "PX", lease_ms};
        co_return AcquireOutcome(co_await connection_.Command(args, deadline), &result.error);
      }
    case RedisLockRecipe::kDelUnlock: {
      const std::array<std::string_view, 6> args{"SET", key, token, "NX", "PX", lease_ms};
      co_return AcquireOutcome(co_await connection_.Command(args, deadline), &result.error);
    }
    case RedisLockRecipe::kGetSet: {
      // Check, then set: another client may set the key in between.
      const std::array<std::string_view, 2> get{"GET", key};
      RedisResponse g = co_await connection_.Command(get, deadline);
      Outcome outcome;
      if (TransportOrErrorOutcome(g, &result.error, &outcome)) {
        // A GET that did or did not run wrote nothing.
        co_return Outcome::kFail;
      }
      if (g.reply.type != RedisReply::Type::kNil) {
        result.error = "held by another client";
        co_return Outcome::kFail;
      }
      const std::array<std::string_view, 5> set{"SET", key, token, "PX", lease_ms};
      co_return AcquireOutcome(co_await connection_.Command(set, deadline), &result.error);
    }
    case RedisLockRecipe::kSetnxExpire: {
      const std::array<std::string_view, 3> setnx{"SETNX", key, token};
      RedisResponse r = co_await connection_.Command(setnx, deadline);
      Outcome outcome;
      if (TransportOrErrorOutcome(r, &result.error, &outcome)) co_return outcome;
      if (r.reply.type != RedisReply::Type::kInteger) {
        result.error = "unexpected reply to SETNX: " + r.reply.Describe();
        co_return Outcome::kUnknown;
      }
      if (r.reply.integer == 0) {
        result.error = "held by another client";
        co_return Outcome::kFail;
      }
      // The key is ours and has no TTL until this second command lands.
      const std::array<std::string_view, 3> expire{"PEXPIRE", key, lease_ms};
      RedisResponse e = co_await connection_.Command(expire, deadline);
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
  const Clock::time_point deadline = Clock::now() + options_.timeout;
  if (options_.recipe == RedisLockRecipe::kDelUnlock) {
    // No owner check: whoever holds the key now loses it.
    const std::array<std::string_view, 2> del{"DEL", key};
    ReleaseResult deleted;
    deleted.outcome = ReleaseOutcome(co_await connection_.Command(del, deadline), &deleted.error);
    co_return deleted;
  }
  std::array<std::string_view, 5> args{"EVALSHA", script_sha_, "1", key, token};
  RedisResponse r = co_await connection_.Command(args, deadline);
  if (r.ok() && r.reply.IsError("NOSCRIPT")) {
    // The script did not run: retrying with its body is safe.
    ++noscript_fallbacks_;
    args[0] = "EVAL";
    args[1] = kReleaseScript;
    r = co_await connection_.Command(args, deadline);
  }
  ReleaseResult result;
  result.outcome = ReleaseOutcome(r, &result.error);
  co_return result;
}

void RedisLockClient::Close() { connection_.Close(); }

std::map<std::string, int64_t> RedisLockClient::Counters() const {
  if (options_.recipe != RedisLockRecipe::kSetnxExpire) return {};
  return {{"expire_failures", static_cast<int64_t>(expire_failures_)}};
}

}  // namespace locksmith
