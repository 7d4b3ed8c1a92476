#include "workloads/pacing.h"

#include <algorithm>
#include <limits>

namespace locksmith {
namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

asio::awaitable<void> SleepUntil(WorkloadContext& ctx, Clock::time_point until) {
  until = std::min(until, ctx.deadline);
  for (auto now = ctx.Now(); !ctx.ShouldStop() && now < until; now = ctx.Now()) {
    // until - now > 0 here, so the comparison cannot overflow.
    const bool waited =
        co_await ctx.clock->WaitUntil(until - now > kInterruptPoll ? now + kInterruptPoll : until);
    if (!waited) co_return;  // cancelled (the io_context is going away)
  }
}

asio::awaitable<void> SleepFor(WorkloadContext& ctx, std::chrono::milliseconds d) {
  const auto now = ctx.Now();
  if (d.count() <= 0 || now >= ctx.deadline) co_return;
  // Compare in milliseconds: d may not fit in the clock's nanoseconds.
  const auto room = std::chrono::duration_cast<std::chrono::milliseconds>(ctx.deadline - now);
  co_await SleepUntil(ctx, d < room ? now + d : ctx.deadline);
}

namespace {

// `seconds` as a clock duration when 0 <= seconds and it is shorter than
// `room`; nullopt otherwise (also for NaN and infinities). No overflow: the
// result is below room, which is a valid duration.
std::optional<Clock::duration> Within(double seconds, Clock::duration room) {
  const double ticks = std::chrono::duration<double, Clock::period>(
                           std::chrono::duration<double>(seconds))
                           .count();
  // 2^62 ticks: far beyond any time limit, and exactly representable.
  constexpr double kMaxTicks = 4611686018427387904.0;
  if (!(ticks >= 0 && ticks < static_cast<double>(room.count()) && ticks < kMaxTicks)) {
    return std::nullopt;
  }
  return Clock::duration(static_cast<Clock::rep>(ticks));
}

}  // namespace

AttemptPacer::AttemptPacer(double rate, int concurrency, int worker, Clock::time_point start,
                           Clock::time_point deadline)
    : deadline_(deadline) {
  if (!(rate > 0) || concurrency <= 0) {
    unlimited_ = true;
    return;
  }
  const double spacing_s = static_cast<double>(concurrency) / rate;
  // Spacing under one tick (huge rates, +inf): no pacing at all.
  if (!(std::chrono::duration<double, Clock::period>(std::chrono::duration<double>(spacing_s))
            .count() >= 1)) {
    unlimited_ = true;
    return;
  }
  if (deadline <= start) {
    none_ = true;
    return;
  }
  const Clock::duration room = deadline - start;
  std::optional<Clock::duration> offset = Within(static_cast<double>(worker) / rate, room);
  if (!offset) {
    none_ = true;  // this worker's first slot is past the deadline
    return;
  }
  first_ = start + *offset;
  // A spacing as long as the time limit (or longer, or not representable):
  // slot 0 only.
  spacing_ = Within(spacing_s, room).value_or(Clock::duration::zero());
}

std::optional<Clock::time_point> AttemptPacer::Next(Clock::time_point now) {
  if (unlimited_) {
    if (now >= deadline_) return std::nullopt;
    return now;
  }
  if (none_) return std::nullopt;
  int64_t k = next_k_;
  const int64_t room = (deadline_ - first_).count();  // > 0: first_ < deadline_
  if (spacing_.count() == 0) {
    if (k > 0) return std::nullopt;
  } else {
    const int64_t sp = spacing_.count();
    // Late: take the latest slot that has passed and skip the older ones
    // (at most one attempt for all the slots missed, never a burst).
    if (now > first_) k = std::max(k, (now - first_).count() / sp);
    // Slots before the deadline are those with k * sp < room; checked by
    // division so k * sp below cannot overflow.
    if (k > (room - 1) / sp) return std::nullopt;
  }
  next_k_ = k + 1;
  return first_ + Clock::duration(k * spacing_.count());
}

}  // namespace locksmith
