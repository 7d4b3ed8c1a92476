#include "backends/redis_reentrant_lock_client.h"

#include <array>

#include "base/ceil_millis.h"

namespace locksmith {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

RedisReentrantLockClient::RedisReentrantLockClient(boost::asio::any_io_executor executor,
                                                   RedisLockClientOptions options, uint64_t seed)
    : options_(std::move(options)),
      connection_(std::move(executor),
                  RedisConnectionOptions{options_.endpoint, options_.connect_timeout}),
      tokens_(seed) {}

std::string RedisReentrantLockClient::ChannelOf(const std::string& key) {
  return "redisson_lock__channel:{" + key + "}";
}

boost::asio::awaitable<Status> RedisReentrantLockClient::Connect() {
  Status connected = co_await connection_.Connect();
  if (!connected) co_return connected;
  Status loaded = co_await lock_.Load(connection_, Clock::now() + options_.timeout);
  if (!loaded) co_return loaded;
  co_return co_await unlock_.Load(connection_, Clock::now() + options_.timeout);
}

boost::asio::awaitable<AcquireResult> RedisReentrantLockClient::Acquire(
    const std::string& key, std::chrono::milliseconds lease) {
  AcquireResult result;
  if (lease.count() < 1) {
    result.outcome = Outcome::kFail;
    result.error = "lease must be at least 1 ms";
    co_return result;
  }
  auto held = held_.find(key);
  const bool reentry = held != held_.end() && held->second.count > 0;
  const std::string owner = reentry ? held->second.owner : tokens_.Next();
  const std::string lease_text = std::to_string(lease.count());
  const std::array<std::string_view, 1> keys{key};
  const std::array<std::string_view, 2> args{lease_text, owner};
  const Clock::time_point start = Clock::now();
  RedisResponse r = co_await lock_.Run(connection_, keys, args, start + options_.timeout);
  const int64_t elapsed_ms = CeilMillis(Clock::now() - start);
  if (std::optional<Outcome> failed = CallErrorOutcome(r, &result.error)) {
    result.outcome = *failed;
  } else if (r.reply.type == RedisReply::Type::kNil) {
    result.outcome = Outcome::kOk;
  } else if (r.reply.type == RedisReply::Type::kInteger) {
    result.outcome = Outcome::kFail;
    result.error = kHeldByAnother;
    result.busy = true;
    result.detail = {{"pttl_ms", r.reply.integer}};
  } else {
    result.outcome = Outcome::kUnknown;
    result.error = "unexpected reply to the lock script: " + r.reply.Describe();
  }
  if (result.outcome != Outcome::kFail) {
    result.token = owner;
    result.validity_ms = lease.count() - elapsed_ms;
  }
  if (result.outcome == Outcome::kOk) {
    Held& h = held_[key];
    h.owner = owner;
    h.lease = lease;
    ++h.count;
    if (reentry) ++reentries_;
  }
  co_return result;
}

boost::asio::awaitable<ReleaseResult> RedisReentrantLockClient::Release(const std::string& key,
                                                                      const std::string& token) {
  auto held = held_.find(key);
  const bool mine = held != held_.end() && held->second.owner == token;
  const int count = mine ? held->second.count : 0;
  const std::chrono::milliseconds lease =
      mine ? held->second.lease : std::chrono::milliseconds(30000);
  const std::string lease_text = std::to_string(lease.count());
  const std::string channel = ChannelOf(key);
  const std::array<std::string_view, 2> keys{key, channel};
  const std::array<std::string_view, 3> args{kUnlockMessage, lease_text, token};
  RedisResponse r = co_await unlock_.Run(connection_, keys, args, Clock::now() + options_.timeout);
  ReleaseResult result;
  if (std::optional<Outcome> failed = CallErrorOutcome(r, &result.error)) {
    result.outcome = *failed;
  } else if (r.reply.type == RedisReply::Type::kInteger && r.reply.integer == 1) {
    result.outcome = Outcome::kOk;
  } else if (r.reply.type == RedisReply::Type::kInteger && r.reply.integer == 0) {
    if (count > 1) {
      result.outcome = Outcome::kOk;
    } else {
      result.outcome = Outcome::kFail;
      result.error = "still held: the server counts more holds than this client took (a "
                     "re-entry whose outcome was unknown took effect); the lease frees it";
    }
  } else if (r.reply.type == RedisReply::Type::kNil) {
    result.outcome = Outcome::kFail;
    result.error = "not held by this owner (expired or taken over)";
  } else {
    result.outcome = Outcome::kUnknown;
    result.error = "unexpected reply to the unlock script: " + r.reply.Describe();
  }
  // The caller's hold ends with its release whatever the outcome (it does
  // not try again): one hold fewer in the client's own count. A count the
  // server keeps beyond it shows at the outermost release (fail above).
  if (mine && --held->second.count <= 0) held_.erase(held);
  co_return result;
}

void RedisReentrantLockClient::Close() { connection_.Close(); }

std::map<std::string, int64_t> RedisReentrantLockClient::Counters() const {
  return {{"reentries", reentries_}};
}

int RedisReentrantLockClient::holds(const std::string& key) const {
  auto it = held_.find(key);
  return it == held_.end() ? 0 : it->second.count;
}

}  // namespace locksmith
