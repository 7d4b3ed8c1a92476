#include "backends/redlock_client.h"

#include <array>
#include <charconv>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "base/ceil_millis.h"
#include "backends/redis_lock_client.h"

namespace locksmith {
namespace {

namespace asio = boost::asio;
using Steady = std::chrono::steady_clock;
using Wall = std::chrono::system_clock;

// Runs `start(i)` (a coroutine returning T) for every i < n at once on
// `executor` and returns their results in order; a coroutine that threw
// yields `on_throw`.
template <typename T, typename Start>
asio::awaitable<std::vector<T>> AllAtOnce(asio::any_io_executor executor, size_t n, Start start,
                                          T on_throw) {
  using Op = decltype(asio::co_spawn(executor, start(size_t{0}), asio::deferred));
  std::vector<Op> ops;
  ops.reserve(n);
  for (size_t i = 0; i < n; ++i) ops.push_back(asio::co_spawn(executor, start(i), asio::deferred));
  auto [order, errors, results] =
      co_await asio::experimental::make_parallel_group(std::move(ops))
          .async_wait(asio::experimental::wait_for_all(), asio::use_awaitable);
  (void)order;
  for (size_t i = 0; i < results.size(); ++i) {
    if (errors[i]) results[i] = on_throw;
  }
  co_return std::move(results);
}

RedisResponse Thrown() {
  RedisResponse r;
  r.error = RedisCallError::kInDoubt;
  r.message = "internal error in the call";
  return r;
}

std::string JoinedOrNone(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
  return out.empty() ? "none" : out;
}

}  // namespace

int RedlockQuorum(int masters) { return masters / 2 + 1; }

int64_t RedlockDriftMs(int64_t lease_ms) { return (lease_ms + 99) / 100 + 2; }

int64_t RedlockValidityMs(int64_t lease_ms, int64_t elapsed_ms, bool drift) {
  return lease_ms - elapsed_ms - (drift ? RedlockDriftMs(lease_ms) : 0);
}

RedlockSetReply ClassifyRedlockSet(const RedisResponse& response, std::string* why) {
  switch (AcquireOutcome(response, why)) {
    case Outcome::kOk: return RedlockSetReply::kGranted;
    case Outcome::kFail: return RedlockSetReply::kRefused;
    case Outcome::kUnknown: break;
  }
  return RedlockSetReply::kInDoubt;
}

RedlockUnlockReply ClassifyRedlockUnlock(const RedisResponse& response, std::string* why) {
  const Outcome outcome = ReleaseOutcome(response, why);
  if (outcome == Outcome::kOk) return RedlockUnlockReply::kDeleted;
  if (outcome == Outcome::kUnknown) return RedlockUnlockReply::kInDoubt;
  // A fail is either the script's 0 or a command that never ran.
  const bool ran = response.ok() && response.reply.type == RedisReply::Type::kInteger;
  return ran ? RedlockUnlockReply::kNotOurs : RedlockUnlockReply::kNotRun;
}

bool RedlockHolds(const std::vector<RedlockSetReply>& set, int64_t validity_ms) {
  int granted = 0;
  for (auto r : set) granted += r == RedlockSetReply::kGranted;
  return granted >= RedlockQuorum(static_cast<int>(set.size())) && validity_ms > 0;
}

Outcome RedlockFailedAcquireOutcome(const std::vector<RedlockSetReply>& set,
                                    const std::vector<RedlockUnlockReply>& unlock) {
  int may_hold = 0;
  for (size_t i = 0; i < set.size(); ++i) {
    const bool unlocked = i < unlock.size() && (unlock[i] == RedlockUnlockReply::kDeleted ||
                                                unlock[i] == RedlockUnlockReply::kNotOurs);
    if (set[i] == RedlockSetReply::kInDoubt) ++may_hold;
    if (set[i] == RedlockSetReply::kGranted && !unlocked) ++may_hold;
  }
  return may_hold < RedlockQuorum(static_cast<int>(set.size())) ? Outcome::kFail
                                                                 : Outcome::kUnknown;
}

Outcome RedlockReleaseOutcome(const std::vector<RedlockUnlockReply>& unlock) {
  int deleted = 0, in_doubt = 0;
  for (auto r : unlock) {
    deleted += r == RedlockUnlockReply::kDeleted;
    in_doubt += r == RedlockUnlockReply::kInDoubt;
  }
  if (deleted >= RedlockQuorum(static_cast<int>(unlock.size()))) return Outcome::kOk;
  if (deleted == 0 && in_doubt == 0) return Outcome::kFail;
  return Outcome::kUnknown;
}

RedlockClient::RedlockClient(asio::any_io_executor executor, RedlockClientOptions options,
                             uint64_t seed)
    : executor_(std::move(executor)),
      options_(std::move(options)),
      tokens_(seed),
      release_(RedisLockClient::kReleaseScript, RedisLockClient::kReleaseScriptSha1) {
  for (const auto& m : options_.masters) {
    connections_.push_back(m.shared_connection
                               ? m.shared_connection
                               : std::make_shared<RedisConnection>(
                                     executor_, RedisConnectionOptions{m.endpoint,
                                                                       options_.connect_timeout}));
  }
}

RedlockClient::~RedlockClient() = default;

asio::awaitable<Status> RedlockClient::Connect() {
  // Each master's error, empty when it answered (co_spawn needs a result
  // type with a default value, which Status lacks).
  auto connect = [this](size_t i) -> asio::awaitable<std::string> {
    Status s = co_await connections_[i]->Connect();
    co_return s ? std::string() : options_.masters[i].name + ": " + s.error();
  };
  auto connected = co_await AllAtOnce<std::string>(executor_, connections_.size(), connect,
                                                   "internal error");
  int ok = 0;
  std::string errors;
  for (const auto& error : connected) {
    if (error.empty()) {
      ++ok;
    } else {
      errors += (errors.empty() ? "" : "; ") + error;
    }
  }
  const int quorum = RedlockQuorum(static_cast<int>(connections_.size()));
  if (ok < quorum) {
    co_return Error{"only " + std::to_string(ok) + " of " + std::to_string(connections_.size()) +
                    " masters answer (quorum " + std::to_string(quorum) + "): " + errors};
  }
  co_return OkStatus();
}

asio::awaitable<RedisResponse> RedlockClient::SetOn(size_t master, std::string key,
                                                    std::string token, std::string lease) {
  const std::array<std::string_view, 6> args{"SET", key, token, "NX", "PX", lease};
  co_return co_await connections_[master]->Command(args, Steady::now() + options_.node_timeout);
}

asio::awaitable<RedisResponse> RedlockClient::UnlockOn(size_t master, std::string key,
                                                       std::string token, Deadline deadline) {
  const std::array<std::string_view, 1> keys{key};
  const std::array<std::string_view, 1> args{token};
  co_return co_await release_.Run(*connections_[master], keys, args, deadline);
}

asio::awaitable<std::vector<RedisResponse>> RedlockClient::SetAll(const std::string& key,
                                                                  const std::string& token,
                                                                  const std::string& lease) {
  if (options_.sequential) {
    std::vector<RedisResponse> responses;
    for (size_t i = 0; i < connections_.size(); ++i) {
      responses.push_back(co_await SetOn(i, key, token, lease));
    }
    co_return responses;
  }
  co_return co_await AllAtOnce<RedisResponse>(
      executor_, connections_.size(), [&](size_t i) { return SetOn(i, key, token, lease); },
      Thrown());
}

asio::awaitable<std::vector<RedlockUnlockReply>> RedlockClient::UnlockAll(
    const std::string& key, const std::string& token, std::string* why) {
  const Deadline deadline = Steady::now() + options_.timeout;
  auto responses = co_await AllAtOnce<RedisResponse>(
      executor_, connections_.size(),
      [&](size_t i) { return UnlockOn(i, key, token, deadline); }, Thrown());
  std::vector<RedlockUnlockReply> replies;
  for (size_t i = 0; i < responses.size(); ++i) {
    std::string one;
    replies.push_back(ClassifyRedlockUnlock(responses[i], &one));
    if (replies.back() == RedlockUnlockReply::kInDoubt ||
        replies.back() == RedlockUnlockReply::kNotRun) {
      *why += (why->empty() ? "" : "; ") + options_.masters[i].name + ": " + one;
    }
  }
  co_return replies;
}

asio::awaitable<AcquireResult> RedlockClient::Acquire(const std::string& key,
                                                      std::chrono::milliseconds lease) {
  AcquireResult result;
  if (closed_ || lease.count() < 1) {
    result.outcome = Outcome::kFail;
    result.error = closed_ ? "client closed" : "lease must be at least 1 ms";
    co_return result;
  }
  const std::string token = tokens_.Next();
  char lease_buf[24];
  auto [end, ec] = std::to_chars(lease_buf, lease_buf + sizeof(lease_buf), lease.count());
  (void)ec;
  const std::string lease_text(lease_buf, end);

  const Steady::time_point start = Steady::now();
  const Wall::time_point wall_start = Wall::now() + wall_step_;
  std::vector<RedisResponse> responses = co_await SetAll(key, token, lease_text);

  std::vector<RedlockSetReply> set;
  std::vector<std::string> granted, in_doubt;
  std::string refusals;
  bool held_by_another = false;  // some master answered that the lock is taken
  for (size_t i = 0; i < responses.size(); ++i) {
    std::string why;
    set.push_back(ClassifyRedlockSet(responses[i], &why));
    held_by_another = held_by_another || why == kHeldByAnother;
    const std::string& name = options_.masters[i].name;
    if (set.back() == RedlockSetReply::kGranted) granted.push_back(name);
    if (set.back() == RedlockSetReply::kInDoubt) in_doubt.push_back(name);
    if (set.back() != RedlockSetReply::kGranted) {
      refusals += (refusals.empty() ? "" : "; ") + name + ": " + why;
    }
  }
  // The replies granted the lock; the client has not judged them yet.
  if (fault_points_ && RedlockHolds(set, 1)) {
    const ClientFaultEffect effect =
        co_await fault_points_(ClientFaultPoint::kAcquireInFlight, key);
    wall_step_ += effect.clock_step;
  }
  const int64_t elapsed_ms = options_.wall_clock
                                 ? CeilMillis(Wall::now() + wall_step_ - wall_start)
                                 : CeilMillis(Steady::now() - start);
  const int64_t validity = RedlockValidityMs(lease.count(), elapsed_ms, !options_.no_drift);
  result.token = token;
  result.detail = {{"granted", granted}, {"in_doubt", in_doubt}, {"elapsed_ms", elapsed_ms}};
  if (RedlockHolds(set, validity)) {
    result.outcome = Outcome::kOk;
    result.validity_ms = validity;
    co_return result;
  }

  std::string unlock_why;
  const std::vector<RedlockUnlockReply> unlock = co_await UnlockAll(key, token, &unlock_why);
  result.outcome = RedlockFailedAcquireOutcome(set, unlock);
  result.busy = result.outcome == Outcome::kFail && held_by_another;
  const int quorum = RedlockQuorum(static_cast<int>(set.size()));
  if (static_cast<int>(granted.size()) >= quorum) {
    result.error = "granted by " + JoinedOrNone(granted) + " but validity " +
                   std::to_string(validity) + " ms after " + std::to_string(elapsed_ms) + " ms";
  } else {
    result.error = "granted by " + std::to_string(granted.size()) + " of " +
                   std::to_string(set.size()) + " masters (quorum " + std::to_string(quorum) +
                   "): " + refusals;
  }
  if (result.outcome == Outcome::kUnknown) {
    result.error += "; in doubt: " + JoinedOrNone(in_doubt) +
                    (unlock_why.empty() ? "" : "; unlock: " + unlock_why);
  } else {
    result.token.clear();
  }
  co_return result;
}

asio::awaitable<ReleaseResult> RedlockClient::Release(const std::string& key,
                                                      const std::string& token) {
  ReleaseResult result;
  if (closed_) {
    result.outcome = Outcome::kFail;
    result.error = "client closed";
    co_return result;
  }
  std::string why;
  const std::vector<RedlockUnlockReply> unlock = co_await UnlockAll(key, token, &why);
  result.outcome = RedlockReleaseOutcome(unlock);
  if (result.outcome != Outcome::kOk) {
    int deleted = 0;
    for (auto r : unlock) deleted += r == RedlockUnlockReply::kDeleted;
    result.error = "deleted on " + std::to_string(deleted) + " of " +
                   std::to_string(unlock.size()) + " masters (quorum " +
                   std::to_string(RedlockQuorum(static_cast<int>(unlock.size()))) + ")" +
                   (why.empty() ? "" : ": " + why);
  }
  co_return result;
}

void RedlockClient::Close() {
  closed_ = true;
  for (size_t i = 0; i < connections_.size(); ++i) {
    if (!options_.masters[i].shared_connection) connections_[i]->Close();
  }
}

}  // namespace locksmith
