#include "backends/watchdog_lock_client.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "base/ceil_millis.h"
#include "backends/task_group.h"

namespace locksmith {
namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

struct WatchdogLockClient::State {
  explicit State(asio::any_io_executor ex, std::unique_ptr<LockClient> client)
      : executor(ex), inner(std::move(client)), pause_gate(ex) {}
  asio::any_io_executor executor;
  std::shared_ptr<LockClient> inner;
  LockEventSink sink;
  bool paused = false;
  bool closed = false;
  asio::steady_timer pause_gate;  // waited on while paused; cancelled at the end of a pause
  std::map<std::string, std::shared_ptr<Watch>> watches;  // by key
  int64_t renewals = 0, renewals_failed = 0, locks_lost = 0;

  void Emit(LockEvent event) {
    if (sink) sink(std::move(event));
  }
};

struct WatchdogLockClient::Watch {
  Watch(asio::any_io_executor ex, std::string k, std::string t, std::chrono::milliseconds l)
      : key(std::move(k)), token(std::move(t)), lease(l), timer(ex) {}
  std::string key;
  std::string token;
  std::chrono::milliseconds lease;
  asio::steady_timer timer;
  bool stopped = false;
};

WatchdogLockClient::WatchdogLockClient(asio::any_io_executor executor,
                                       std::unique_ptr<LockClient> inner)
    : state_(std::make_shared<State>(executor, std::move(inner))) {}

WatchdogLockClient::~WatchdogLockClient() { Close(); }

asio::awaitable<Status> WatchdogLockClient::Connect() { co_return co_await state_->inner->Connect(); }

asio::awaitable<AcquireResult> WatchdogLockClient::Acquire(const std::string& key,
                                                           std::chrono::milliseconds lease) {
  std::shared_ptr<State> state = state_;
  AcquireResult r = co_await state->inner->Acquire(key, lease);
  if (r.outcome != Outcome::kOk || state->closed) co_return r;
  Stop(key);  // a watch left over from an earlier hold of the key
  auto watch = std::make_shared<Watch>(state->executor, key, r.token, lease);
  state->watches[key] = watch;
  // What a renewal throws (the event sink's recording, say) fails the run.
  BackgroundTasks(state->executor).Spawn("watchdog of " + key, Renew(state, watch));
  co_return r;
}

asio::awaitable<ReleaseResult> WatchdogLockClient::Release(const std::string& key,
                                                           const std::string& token) {
  std::shared_ptr<State> state = state_;
  Stop(key);
  co_return co_await state->inner->Release(key, token);
}

asio::awaitable<ExtendResult> WatchdogLockClient::Extend(const std::string& key,
                                                         const std::string& token,
                                                         std::chrono::milliseconds lease) {
  std::shared_ptr<LockClient> inner = state_->inner;
  co_return co_await inner->Extend(key, token, lease);
}

void WatchdogLockClient::Stop(const std::string& key) {
  auto it = state_->watches.find(key);
  if (it == state_->watches.end()) return;
  it->second->stopped = true;
  it->second->timer.cancel();
  state_->watches.erase(it);
}

void WatchdogLockClient::Close() {
  if (state_->closed) return;
  state_->closed = true;
  while (!state_->watches.empty()) Stop(state_->watches.begin()->first);
  state_->pause_gate.cancel();
  state_->sink = nullptr;
  state_->inner->Close();
}

void WatchdogLockClient::SetPaused(bool paused) {
  state_->paused = paused;
  if (paused) {
    state_->pause_gate.expires_at(Clock::time_point::max());
  } else {
    state_->pause_gate.cancel();
  }
  state_->inner->SetPaused(paused);
}

void WatchdogLockClient::SetEventSink(LockEventSink sink) { state_->sink = std::move(sink); }

std::map<std::string, int64_t> WatchdogLockClient::Counters() const {
  auto counters = state_->inner->Counters();
  counters["renewals"] = state_->renewals;
  counters["renewals_failed"] = state_->renewals_failed;
  counters["locks_lost"] = state_->locks_lost;
  return counters;
}

size_t WatchdogLockClient::watched() const { return state_->watches.size(); }

asio::awaitable<void> WatchdogLockClient::WhilePaused(State& state, const Watch& watch) {
  while (state.paused && !watch.stopped) {
    (void)co_await state.pause_gate.async_wait(asio::as_tuple(asio::use_awaitable));
  }
}

asio::awaitable<void> WatchdogLockClient::Renew(std::shared_ptr<State> state,
                                                std::shared_ptr<Watch> watch) {
  const auto period = std::max(std::chrono::milliseconds(1), watch->lease / 3);
  for (;;) {
    watch->timer.expires_after(period);
    (void)co_await watch->timer.async_wait(asio::as_tuple(asio::use_awaitable));
    co_await WhilePaused(*state, *watch);
    if (watch->stopped) co_return;
    const Clock::time_point sent = Clock::now();
    ExtendResult r = co_await state->inner->Extend(watch->key, watch->token, watch->lease);
    co_await WhilePaused(*state, *watch);  // a reply read in a pause counts after it
    if (watch->stopped) co_return;
    LockEvent renewed{LockEvent::Kind::kRenewed, watch->key, watch->token, r.outcome, 0, r.error};
    if (r.outcome == Outcome::kOk) {
      ++state->renewals;
      renewed.validity_ms =
          watch->lease.count() -
          CeilMillis(Clock::now() - sent);
      state->Emit(std::move(renewed));
      continue;
    }
    ++state->renewals_failed;
    state->Emit(std::move(renewed));
    if (!r.not_held) continue;  // no answer: try again a period later
    ++state->locks_lost;
    watch->stopped = true;
    auto it = state->watches.find(watch->key);
    if (it != state->watches.end() && it->second == watch) state->watches.erase(it);
    state->Emit(LockEvent{LockEvent::Kind::kLost, watch->key, watch->token, Outcome::kOk, 0,
                          "renewal: " + r.error});
    co_return;
  }
}

}  // namespace locksmith
