// FakeClock (test-only): a WorkloadClock in virtual time, so workload and
// pacing tests assert exact times and never sleep. Time moves only when the
// test says so: Run() drives an io_context, running every ready handler and,
// when none is left, jumping to the earliest pending wait and waking it (a
// discrete-event simulation: no wait ever ends early or late). Advance()
// moves time by hand. Not thread-safe: use it on the io_context's thread.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <utility>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "workloads/workload_clock.h"

namespace locksmith::testing {

class FakeClock : public WorkloadClock {
 public:
  // Where time starts: far from the clock's epoch, so tests may go back.
  static constexpr Clock::time_point kStart{std::chrono::hours(24)};

  explicit FakeClock(Clock::time_point start = kStart) : now_(start) {}
  FakeClock(const FakeClock&) = delete;
  FakeClock& operator=(const FakeClock&) = delete;

  Clock::time_point Now() override { return now_; }

  boost::asio::awaitable<bool> WaitUntil(Clock::time_point until) override {
    namespace asio = boost::asio;
    const asio::any_io_executor executor = co_await asio::this_coro::executor;
    if (until <= now_) {  // like a timer already expired: completes, but not inline
      co_await asio::post(executor, asio::use_awaitable);
      co_return true;
    }
    co_return co_await asio::async_initiate<decltype(asio::use_awaitable), void(bool)>(
        [this, until, executor](auto handler) {
          waiters_.emplace(until, Waiter{executor, Handler(std::move(handler))});
        },
        asio::use_awaitable);
  }

  // Runs `io` in virtual time until `done()` holds: ready handlers first;
  // when none is ready, time jumps to the earliest wait, which completes.
  // False when nothing is left to run and done() still does not hold, or
  // when `real_limit` of wall time passed (a test that never ends).
  bool Run(boost::asio::io_context& io, const std::function<bool()>& done,
           std::chrono::steady_clock::duration real_limit = std::chrono::seconds(60)) {
    const auto give_up = std::chrono::steady_clock::now() + real_limit;
    while (!done()) {
      if (std::chrono::steady_clock::now() >= give_up) return false;
      io.restart();  // poll() stops an io_context that ran out of work
      if (io.poll() > 0) continue;
      if (waiters_.empty()) return false;
      now_ = waiters_.begin()->first;
      WakeDue();
    }
    return true;
  }

  // Moves time forward by `d` and wakes the waits due by then (their
  // coroutines resume when the test next runs the io_context).
  void Advance(Clock::duration d) {
    now_ += d;
    WakeDue();
  }

  // Waits not yet due.
  size_t pending() const { return waiters_.size(); }

 private:
  using Handler = boost::asio::any_completion_handler<void(bool)>;
  struct Waiter {
    boost::asio::any_io_executor executor;  // the waiting coroutine's
    Handler handler;
  };

  void WakeDue() {
    while (!waiters_.empty() && waiters_.begin()->first <= now_) {
      Waiter w = std::move(waiters_.extract(waiters_.begin()).mapped());
      boost::asio::post(w.executor, [h = std::move(w.handler)]() mutable { std::move(h)(true); });
    }
  }

  Clock::time_point now_;
  std::multimap<Clock::time_point, Waiter> waiters_;  // equal times: in order of waiting
};

}  // namespace locksmith::testing
