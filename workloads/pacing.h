// Pacing for workload workers: sleeps that respect the run's deadline and
// interrupt, and the slots of a worker's attempts under --rate. Used on the
// run's io_context thread; not thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include <boost/asio/awaitable.hpp>

#include "workloads/workload.h"

namespace locksmith {

// Nothing posts to the io_context on an interrupt (the flag is an atomic set
// by another thread), so sleeps wake at least this often to look at it.
inline constexpr std::chrono::milliseconds kInterruptPoll{50};

// Sleeps until `until` or ctx.deadline, whichever comes first; returns
// within about kInterruptPoll once ctx.ShouldStop(). Never before
// min(until, deadline) unless stopped.
boost::asio::awaitable<void> SleepUntil(WorkloadContext& ctx,
                                        std::chrono::steady_clock::time_point until);
// The same for a duration from now; a negative one does not sleep, a huge one
// ends at the deadline (no overflow).
boost::asio::awaitable<void> SleepFor(WorkloadContext& ctx, std::chrono::milliseconds d);

// The slots of one worker's acquire attempts under a total `rate` (attempts
// per second) shared by `concurrency` workers: worker w's slots are
// start + w / rate + k * concurrency / rate, k = 0, 1, ...; only slots before
// the deadline count. Next() hands out each slot once; a worker that fell
// behind gets the latest slot that has passed (at once) and the older ones
// are skipped, so it does not burst to catch up. Each attempt uses its own
// slot at or before it, so no worker ever runs ahead of the rate.
// A spacing at least as long as the time limit means one attempt per worker
// at most; rate <= 0 (or NaN, or a spacing under one clock tick) means
// unlimited. Any double is safe: no conversion can overflow.
class AttemptPacer {
 public:
  using Clock = std::chrono::steady_clock;

  AttemptPacer(double rate, int concurrency, int worker, Clock::time_point start,
               Clock::time_point deadline);

  // The time of the next attempt: the latest unused slot at or before `now`
  // if there is one, older ones being skipped, else the first unused slot
  // after `now`; nullopt when there is none before the deadline. Unlimited:
  // `now` while before the deadline.
  std::optional<Clock::time_point> Next(Clock::time_point now);

 private:
  Clock::time_point deadline_;
  bool unlimited_ = false;
  bool none_ = false;           // no slot at all before the deadline
  Clock::time_point first_{};   // slot 0
  Clock::duration spacing_{};   // zero: slot 0 only
  int64_t next_k_ = 0;          // lowest slot not yet handed out
};

}  // namespace locksmith
