#include "backends/sentinel_lock_client.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "base/seed.h"

namespace locksmith {
namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

namespace {

// The inner client's points passed on: its crash point alone (`key` a copy,
// the call may outlive the caller's string).
asio::awaitable<ClientFaultEffect> PassSentinelCrashPoint(ClientFaultPointHook hook,
                                                          ClientFaultPoint point, std::string key) {
  if (point != ClientFaultPoint::kAcquireAnswered) co_return ClientFaultEffect{};
  co_return co_await hook(point, key);
}

}  // namespace

SentinelLockClient::SentinelLockClient(asio::any_io_executor executor,
                                       SentinelLockClientOptions options, uint64_t seed)
    : executor_(executor),
      options_(std::move(options)),
      seed_(seed),
      finder_(executor, SentinelMasterFinderOptions{options_.sentinels, options_.master_name,
                                                    options_.password}),
      lookup_done_(executor) {}

SentinelLockClient::~SentinelLockClient() { Close(); }

std::string SentinelLockClient::master() const {
  if (!inner_) return "";
  return master_.host + ":" + std::to_string(master_.port);
}

asio::awaitable<Status> SentinelLockClient::EnsureMaster() {
  while (looking_up_ && !closed_) {  // another call's lookup: wait for it
    (void)co_await lookup_done_.async_wait(asio::as_tuple(asio::use_awaitable));
  }
  if (closed_) co_return Error{"client closed"};
  if (inner_ && !stale_ && finder_.switches() == seen_switches_) co_return OkStatus();
  looking_up_ = true;
  lookup_done_.expires_at(Clock::time_point::max());
  Status s = co_await LookUpMaster();
  looking_up_ = false;
  lookup_done_.cancel();
  co_return s;
}

asio::awaitable<Status> SentinelLockClient::LookUpMaster() {
  const uint64_t switches = finder_.switches();
  auto found = co_await finder_.Ask(Clock::now() + options_.timeout);
  if (!found) co_return Error{found.error()};
  seen_switches_ = switches;
  stale_ = false;
  if (inner_ && found->host == master_.host && found->port == master_.port) co_return OkStatus();
  if (inner_) inner_->Close();
  master_ = *found;
  inner_ = options_.make_client(executor_, master_, SubSeed(seed_, clients_made_++));
  if (crash_point_) inner_->SetFaultPointHook(crash_point_);
  // A failed connect is not fatal: the inner client reconnects lazily and
  // its calls report what happened; ask again before the next call.
  std::shared_ptr<LockClient> inner = inner_;
  if (Status s = co_await inner->Connect(); !s) stale_ = true;
  co_return OkStatus();
}

void SentinelLockClient::SetFaultPointHook(ClientFaultPointHook hook) {
  crash_point_ = nullptr;
  if (hook) {
    crash_point_ = [hook = std::move(hook)](ClientFaultPoint point, const std::string& key) {
      return PassSentinelCrashPoint(hook, point, key);
    };
  }
  if (inner_) inner_->SetFaultPointHook(crash_point_);
}

ClientFaultPoints SentinelLockClient::OwnFaultPoints() const {
  // Before the first master lookup there is no inner client to ask: the
  // worker then dies after the acquire instead (and the inner client made
  // later still gets the point).
  if (!crash_point_ || !inner_ ||
      !inner_->OwnFaultPoints().contains(ClientFaultPoint::kAcquireAnswered)) {
    return {};
  }
  return {ClientFaultPoint::kAcquireAnswered};
}

void SentinelLockClient::Observe(Outcome outcome, const std::string& error) {
  if (outcome == Outcome::kUnknown || error.find("READONLY") != std::string::npos ||
      error.find("MASTERDOWN") != std::string::npos || error.rfind("not sent", 0) == 0) {
    stale_ = true;
  }
}

asio::awaitable<Status> SentinelLockClient::Connect() {
  if (options_.watch) finder_.Watch();
  Status s = co_await EnsureMaster();
  if (!s) co_return s;
  if (stale_) co_return Error{"cannot connect to the master " + master()};
  co_return OkStatus();
}

asio::awaitable<AcquireResult> SentinelLockClient::Acquire(const std::string& key,
                                                           std::chrono::milliseconds lease) {
  if (Status s = co_await EnsureMaster(); !s) {
    AcquireResult r;
    r.outcome = Outcome::kFail;  // nothing was sent
    r.error = "no master: " + s.error();
    co_return r;
  }
  std::shared_ptr<LockClient> inner = inner_;
  AcquireResult r = co_await inner->Acquire(key, lease);
  Observe(r.outcome, r.error);
  co_return r;
}

asio::awaitable<ReleaseResult> SentinelLockClient::Release(const std::string& key,
                                                           const std::string& token) {
  if (Status s = co_await EnsureMaster(); !s) {
    ReleaseResult r;
    r.outcome = Outcome::kFail;
    r.error = "no master: " + s.error();
    co_return r;
  }
  std::shared_ptr<LockClient> inner = inner_;
  ReleaseResult r = co_await inner->Release(key, token);
  Observe(r.outcome, r.error);
  co_return r;
}

asio::awaitable<ExtendResult> SentinelLockClient::Extend(const std::string& key,
                                                         const std::string& token,
                                                         std::chrono::milliseconds lease) {
  if (Status s = co_await EnsureMaster(); !s) {
    co_return ExtendResult{Outcome::kFail, false, 0, "no master: " + s.error()};
  }
  std::shared_ptr<LockClient> inner = inner_;
  ExtendResult r = co_await inner->Extend(key, token, lease);
  Observe(r.outcome, r.error);
  co_return r;
}

void SentinelLockClient::Close() {
  closed_ = true;
  lookup_done_.cancel();
  finder_.Close();
  if (inner_) inner_->Close();
}

}  // namespace locksmith
