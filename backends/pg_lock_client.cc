#include "backends/pg_lock_client.h"

#include <algorithm>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace locksmith {
namespace {

namespace asio = boost::asio;
using std::chrono::milliseconds;

constexpr milliseconds kFirstBackoff{5};
constexpr milliseconds kMaxBackoff{100};

int64_t CeilMs(std::chrono::steady_clock::duration d) {
  return std::chrono::ceil<milliseconds>(d).count();
}

AcquireResult AcquireFailed(Outcome outcome, std::string token, std::string why) {
  AcquireResult r;
  r.outcome = outcome;
  r.token = std::move(token);
  r.error = std::move(why);
  return r;
}

// What a failed statement makes of the call: certainly not applied, or maybe.
Outcome OutcomeOf(PgCallError error) {
  return error == PgCallError::kInDoubt ? Outcome::kUnknown : Outcome::kFail;
}

}  // namespace

PgLockClient::PgLockClient(asio::any_io_executor executor, PgLockClientOptions options,
                           PgLockKind kind, uint64_t seed)
    : executor_(executor),
      options_(std::move(options)),
      kind_(kind),
      tokens_(seed) {}

PgLockClient::~PgLockClient() { Close(); }

asio::awaitable<Status> PgLockClient::Connect() {
  if (closed_) co_return Error{"the client is closed"};
  PgEndpoint from_ours = options_.server;
  from_ours.source_address = options_.source_address;
  connection_ = std::make_unique<PgConnection>(executor_, from_ours);
  co_return co_await EnsureSession(Clock::now() +
                                   std::max<Clock::duration>(options_.timeout,
                                                             kFirstConnectAllowance));
}

void PgLockClient::Close() {
  closed_ = true;
  if (connection_) connection_->Close();
}

asio::awaitable<Status> PgLockClient::EnsureSession(Clock::time_point deadline) {
  if (closed_ || !connection_) co_return Error{"the client is closed"};
  co_return co_await connection_->Connect(deadline);
}

asio::awaitable<AcquireResult> PgLockClient::TryAcquire(const std::string& key,
                                                        milliseconds lease,
                                                        const std::string& token) {
  const auto sent = Clock::now();
  const auto deadline = sent + options_.timeout;
  if (Status s = co_await EnsureSession(deadline); !s) {
    co_return AcquireFailed(Outcome::kFail, token, "not connected: " + s.error());
  }
  const bool advisory = kind_ == PgLockKind::kAdvisory;
  std::vector<std::string> params;
  if (advisory) {
    params.push_back(std::to_string(PgAdvisoryKey(key)));
  } else {
    params = {key, token, std::to_string(lease.count())};
  }
  const std::string sql =
      advisory ? PgAdvisoryAcquireSql(options_.fencing) : PgTableAcquireSql(options_.fencing);
  PgResponse r = co_await connection_->Query(sql, params, deadline);
  if (r.error != PgCallError::kNone) co_return AcquireFailed(OutcomeOf(r.error), token, r.message);
  auto grant = advisory ? PgDecodeAdvisoryAcquire(r.rows) : PgDecodeTableAcquire(r.rows);
  if (!grant) {
    connection_->Close();  // what we took, if anything, goes with the session (advisory)
    co_return AcquireFailed(Outcome::kUnknown, token, "unreadable answer: " + grant.error());
  }
  if (!grant->granted) {
    AcquireResult busy = AcquireFailed(Outcome::kFail, token, kHeldByAnother);
    busy.busy = true;
    co_return busy;
  }
  AcquireResult ok;
  ok.outcome = Outcome::kOk;
  ok.token = token;
  ok.fence = grant->fence;
  ok.validity_ms = std::max<int64_t>(0, lease.count() - CeilMs(Clock::now() - sent));
  ok.session_lease = advisory;
  co_return ok;
}

asio::awaitable<AcquireResult> PgLockClient::Acquire(const std::string& key, milliseconds lease) {
  if (closed_) co_return AcquireFailed(Outcome::kFail, "", "the client is closed");
  if (kind_ == PgLockKind::kAdvisory) co_return co_await AcquireAdvisory(key, lease);
  co_return co_await TryAcquire(key, lease, tokens_.Next());
}

asio::awaitable<AcquireResult> PgLockClient::AcquireAdvisory(const std::string& key,
                                                             milliseconds lease) {
  const std::string token = tokens_.Next();
  const auto give_up = Clock::now() + std::max(acquire_wait_, options_.timeout);
  milliseconds backoff = kFirstBackoff;
  for (;;) {
    AcquireResult r = co_await TryAcquire(key, lease, token);
    if (r.outcome == Outcome::kOk) {
      held_[key] = {token, connection_->generation()};
      co_return r;
    }
    if (!r.busy || Clock::now() + backoff >= give_up) co_return r;
    ++retries_;
    asio::steady_timer timer(executor_, backoff);
    co_await timer.async_wait(asio::use_awaitable);
    if (closed_) co_return AcquireFailed(Outcome::kFail, token, "the client is closed");
    backoff = std::min(backoff * 2, kMaxBackoff);
  }
}

asio::awaitable<ReleaseResult> PgLockClient::Release(const std::string& key,
                                                     const std::string& token) {
  if (closed_) co_return ReleaseResult{Outcome::kFail, "the client is closed"};
  if (kind_ == PgLockKind::kAdvisory) co_return co_await ReleaseAdvisory(key, token);
  co_return co_await ReleaseRow(key, token);
}

asio::awaitable<ReleaseResult> PgLockClient::ReleaseAdvisory(const std::string& key,
                                                             const std::string& token) {
  auto it = held_.find(key);
  if (it == held_.end() || it->second.token != token) {
    co_return ReleaseResult{Outcome::kFail, "lock lost: not held by this client"};
  }
  const uint64_t session = it->second.session;
  held_.erase(it);
  if (!connection_->Alive() || connection_->generation() != session) {
    co_return ReleaseResult{Outcome::kFail,
                            "lock lost: the session that took it has ended"};
  }
  const std::vector<std::string> params = {std::to_string(PgAdvisoryKey(key))};
  PgResponse r =
      co_await connection_->Query(PgAdvisoryReleaseSql(), params, Clock::now() + options_.timeout);
  if (r.error != PgCallError::kNone) co_return ReleaseResult{OutcomeOf(r.error), r.message};
  auto released = PgDecodeAdvisoryRelease(r.rows);
  if (!released) {
    connection_->Close();
    co_return ReleaseResult{Outcome::kUnknown, "unreadable answer: " + released.error()};
  }
  if (!*released) co_return ReleaseResult{Outcome::kFail, "lock lost: the session did not hold it"};
  co_return ReleaseResult{Outcome::kOk, ""};
}

asio::awaitable<ReleaseResult> PgLockClient::ReleaseRow(const std::string& key,
                                                        const std::string& token) {
  const auto deadline = Clock::now() + options_.timeout;
  if (Status s = co_await EnsureSession(deadline); !s) {
    co_return ReleaseResult{Outcome::kFail, "not connected: " + s.error()};
  }
  const std::vector<std::string> params = {key, token};
  PgResponse r = co_await connection_->Query(PgTableReleaseSql(), params, deadline);
  if (r.error != PgCallError::kNone) co_return ReleaseResult{OutcomeOf(r.error), r.message};
  auto deleted = PgDecodeTableRelease(r.rows);
  if (!deleted) {
    connection_->Close();
    co_return ReleaseResult{Outcome::kUnknown, "unreadable answer: " + deleted.error()};
  }
  if (!*deleted) {
    co_return ReleaseResult{Outcome::kFail,
                            "lock lost: no row of this owner (expired and taken over, or gone)"};
  }
  co_return ReleaseResult{Outcome::kOk, ""};
}

std::map<std::string, int64_t> PgLockClient::Counters() const {
  return {{"sessions", connection_ ? connection_->sessions_opened() : 0},
          {"acquire_retries", retries_}};
}

}  // namespace locksmith
