// WorkloadClock: the time a workload reads and waits on (its deadline, rate
// slots, holds and backoffs). Runs use SteadyWorkloadClock(): the steady
// clock and Asio timers. Tests inject testing::FakeClock (virtual time), so
// they assert on exact times instead of lower bounds on wall time, and never
// wait for real. Implementations are used from the io_context's thread;
// SteadyWorkloadClock() has no state and is thread-safe.
#pragma once

#include <chrono>

#include <boost/asio/awaitable.hpp>

namespace locksmith {

class WorkloadClock {
 public:
  using Clock = std::chrono::steady_clock;

  virtual ~WorkloadClock() = default;
  virtual Clock::time_point Now() = 0;
  // Completes at `until` or later (soon, if it has passed), on the awaiting
  // coroutine's executor; false when the wait was cancelled.
  virtual boost::asio::awaitable<bool> WaitUntil(Clock::time_point until) = 0;
};

// std::chrono::steady_clock, waited on with a boost::asio::steady_timer.
WorkloadClock& SteadyWorkloadClock();

}  // namespace locksmith
