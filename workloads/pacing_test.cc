#include "workloads/pacing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <thread>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include "backends/testing/fake_lock_service.h"
#include "history/testing/memory_recorder.h"
#include "workloads/testing/fake_clock.h"

namespace locksmith {
namespace {

using testing::FakeClock;
using testing::FakeLockService;
using testing::MemoryRecorder;

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

// --- AttemptPacer: pure arithmetic on time points; no clock is read.

const Clock::time_point kStart = Clock::time_point(seconds(1000));

TEST(AttemptPacerTest, UnlimitedAttemptsAtOnceUntilTheDeadline) {
  for (double rate : {0.0, -1.0, std::nan(""), 1e300, std::numeric_limits<double>::infinity()}) {
    AttemptPacer p(rate, 5, 3, kStart, kStart + seconds(3));
    EXPECT_EQ(p.Next(kStart), kStart) << rate;
    EXPECT_EQ(p.Next(kStart + seconds(2)), kStart + seconds(2)) << rate;
    EXPECT_EQ(p.Next(kStart + seconds(3)), std::nullopt) << rate;
  }
}

TEST(AttemptPacerTest, FirstAttemptsAreSpreadByWorkerOverRate) {
  // 20 workers, 1 attempt/s in all, 3 s: workers 0, 1, 2 get one slot each
  // (at 0, 1, 2 s); the rest none; nobody gets a second (spacing 20 s).
  int attempts = 0;
  for (int w = 0; w < 20; ++w) {
    AttemptPacer p(1, 20, w, kStart, kStart + seconds(3));
    auto first = p.Next(kStart);
    if (w < 3) {
      ASSERT_TRUE(first) << w;
      EXPECT_EQ(*first, kStart + seconds(w));
      ++attempts;
      EXPECT_EQ(p.Next(*first + milliseconds(10)), std::nullopt) << w;
    } else {
      EXPECT_EQ(first, std::nullopt) << w;
    }
  }
  EXPECT_EQ(attempts, 3);
}

TEST(AttemptPacerTest, SlotsAreSpacedByConcurrencyOverRate) {
  // 2 workers at 20/s: each every 100 ms, worker 1 offset by 50 ms.
  AttemptPacer p(20, 2, 1, kStart, kStart + seconds(1));
  EXPECT_EQ(p.Next(kStart), kStart + milliseconds(50));
  EXPECT_EQ(p.Next(kStart + milliseconds(51)), kStart + milliseconds(150));
  EXPECT_EQ(p.Next(kStart + milliseconds(149)), kStart + milliseconds(250));
  // Each slot is handed out once, even if asked again early.
  EXPECT_EQ(p.Next(kStart), kStart + milliseconds(350));
}

TEST(AttemptPacerTest, MissedSlotsAreSkippedNotCaughtUp) {
  AttemptPacer p(100, 1, 0, kStart, kStart + seconds(10));  // every 10 ms
  // Asked a little after its first slot (as worker 0 always is): that slot.
  EXPECT_EQ(p.Next(kStart + Clock::duration(1)), kStart);
  // A hold of 45 ms missed the slots at 10..40 ms: one attempt now for the
  // latest (40 ms), the others skipped; then 50 ms, not 10, 20, 30.
  EXPECT_EQ(p.Next(kStart + milliseconds(45)), kStart + milliseconds(40));
  EXPECT_EQ(p.Next(kStart + milliseconds(46)), kStart + milliseconds(50));
  EXPECT_EQ(p.Next(kStart + milliseconds(50)), kStart + milliseconds(60));
  // Exactly on a slot: that slot.
  EXPECT_EQ(p.Next(kStart + milliseconds(100)), kStart + milliseconds(100));
  // Much later: one slot, not the 100 missed.
  EXPECT_EQ(p.Next(kStart + milliseconds(1105)), kStart + milliseconds(1100));
  EXPECT_EQ(p.Next(kStart + milliseconds(1105)), kStart + milliseconds(1110));
}

TEST(AttemptPacerTest, NoSlotAtOrPastTheDeadline) {
  AttemptPacer p(10, 1, 0, kStart, kStart + milliseconds(300));  // every 100 ms
  EXPECT_EQ(p.Next(kStart), kStart);
  EXPECT_EQ(p.Next(kStart + milliseconds(1)), kStart + milliseconds(100));
  EXPECT_EQ(p.Next(kStart + milliseconds(101)), kStart + milliseconds(200));
  EXPECT_EQ(p.Next(kStart + milliseconds(201)), std::nullopt);  // 300 ms is the deadline
  AttemptPacer late(10, 1, 0, kStart, kStart + milliseconds(300));
  EXPECT_EQ(late.Next(kStart + milliseconds(250)), kStart + milliseconds(200));
  EXPECT_EQ(late.Next(kStart + milliseconds(251)), std::nullopt);
}

TEST(AttemptPacerTest, ADeadlineAtOrBeforeTheStartMeansNoAttempt) {
  EXPECT_EQ(AttemptPacer(10, 1, 0, kStart, kStart).Next(kStart), std::nullopt);
  EXPECT_EQ(AttemptPacer(10, 1, 0, kStart, kStart - seconds(1)).Next(kStart), std::nullopt);
  EXPECT_EQ(AttemptPacer(0, 1, 0, kStart, kStart - seconds(1)).Next(kStart), std::nullopt);
}

TEST(AttemptPacerTest, TinyRatesAndFarDeadlinesDoNotOverflow) {
  for (Clock::time_point deadline : {kStart + seconds(3), Clock::time_point::max()}) {
    for (double rate : {1e-300, 1e-12, std::numeric_limits<double>::denorm_min()}) {
      AttemptPacer w0(rate, 50, 0, kStart, deadline);
      EXPECT_EQ(w0.Next(kStart), kStart) << rate;
      EXPECT_EQ(w0.Next(kStart + seconds(1)), std::nullopt) << rate;  // spacing beyond any limit
      AttemptPacer w1(rate, 50, 1, kStart, deadline);
      EXPECT_EQ(w1.Next(kStart), std::nullopt) << rate;
    }
  }
  // A far deadline with an ordinary rate: slots keep coming, late or not.
  AttemptPacer p(1, 1, 0, kStart, Clock::time_point::max());
  EXPECT_EQ(p.Next(kStart), kStart);
  EXPECT_EQ(p.Next(kStart + seconds(1'000'000'000)), kStart + seconds(1'000'000'000));
  // Late near the end of the clock: the last slot before it, then none.
  auto last = p.Next(Clock::time_point::max() - Clock::duration(1));
  ASSERT_TRUE(last);
  EXPECT_GT(*last, Clock::time_point::max() - seconds(1));
  EXPECT_EQ(p.Next(Clock::time_point::max() - Clock::duration(1)), std::nullopt);
}

// --- Sleeps: in virtual time (FakeClock), they end exactly at their end
// (min of target and deadline), or within kInterruptPoll of an interrupt.

struct Env {
  FakeClock clock;
  boost::asio::io_context io;
  FakeLockService service;
  MemoryRecorder recorder;
  std::atomic<bool> interrupted{false};
  WorkloadContext ctx;
  const Clock::time_point start = FakeClock::kStart;
  explicit Env(Clock::duration deadline_in) : Env(FakeClock::kStart + deadline_in) {}
  explicit Env(Clock::time_point deadline)
      : ctx{io, service, recorder, WorkloadOptions{}, deadline, interrupted} {
    ctx.clock = &clock;
  }

  // Runs `sleep` to its end; false if it did not end. On the fake clock it
  // runs in virtual time; on the real one (a test that sets ctx.clock) for at
  // most 10 s of wall time, then interrupted.
  template <typename F>
  bool Run(F sleep) {
    bool done = false;
    boost::asio::co_spawn(
        io,
        [&]() -> boost::asio::awaitable<void> {
          co_await sleep(ctx);
          done = true;
        },
        boost::asio::detached);
    if (ctx.clock == &clock) return clock.Run(io, [&] { return done; });
    io.run_for(seconds(10));
    if (!done) {
      interrupted = true;
      io.run_for(seconds(1));
    }
    return done;
  }
};

TEST(SleepTest, SleepsUntilTheTarget) {
  Env env(seconds(30));
  ASSERT_TRUE(env.Run(
      [&](WorkloadContext& ctx) { return SleepUntil(ctx, env.start + milliseconds(120)); }));
  EXPECT_EQ(env.clock.Now(), env.start + milliseconds(120));
}

TEST(SleepTest, EndsAtTheDeadline) {
  Env env(milliseconds(100));
  ASSERT_TRUE(env.Run([](WorkloadContext& ctx) { return SleepFor(ctx, seconds(3600)); }));
  EXPECT_EQ(env.clock.Now(), env.ctx.deadline);
  Env huge(milliseconds(50));
  ASSERT_TRUE(huge.Run([](WorkloadContext& ctx) { return SleepFor(ctx, milliseconds::max()); }));
  EXPECT_EQ(huge.clock.Now(), huge.ctx.deadline);
}

TEST(SleepTest, APastDeadlineOrNegativeDurationDoesNotSleep) {
  Env past(-seconds(1));
  ASSERT_TRUE(past.Run([](WorkloadContext& ctx) { return SleepFor(ctx, seconds(3600)); }));
  EXPECT_EQ(past.clock.Now(), past.start);
  Env negative(seconds(30));
  ASSERT_TRUE(negative.Run([](WorkloadContext& ctx) { return SleepFor(ctx, milliseconds(-5)); }));
  EXPECT_EQ(negative.clock.Now(), negative.start);
  Env far(Clock::time_point::max());
  ASSERT_TRUE(far.Run([](WorkloadContext& ctx) { return SleepFor(ctx, milliseconds(-5)); }));
  EXPECT_EQ(far.clock.Now(), far.start);
}

TEST(SleepTest, AnInterruptEndsTheSleepWithinOnePoll) {
  Env env(Clock::time_point::max());
  const auto interrupt_at = env.start + milliseconds(130);
  boost::asio::co_spawn(
      env.io,
      [&]() -> boost::asio::awaitable<void> {
        co_await env.clock.WaitUntil(interrupt_at);
        env.interrupted = true;
      },
      boost::asio::detached);
  ASSERT_TRUE(env.Run([](WorkloadContext& ctx) { return SleepFor(ctx, seconds(3600)); }));
  EXPECT_GE(env.clock.Now(), interrupt_at);
  EXPECT_LE(env.clock.Now(), interrupt_at + kInterruptPoll);
}

// Nothing posts to the io_context on an interrupt: on the real clock, the
// sleep's own polling must notice a flag set by another thread.
TEST(SleepTest, AnInterruptFromAnotherThreadEndsTheSleep) {
  Env env(Clock::time_point::max());
  env.ctx.clock = &SteadyWorkloadClock();
  std::thread interrupter([&] {
    std::this_thread::sleep_for(milliseconds(100));
    env.interrupted = true;
  });
  bool interrupted_at_end = false;
  const bool done = env.Run([&](WorkloadContext& ctx) -> boost::asio::awaitable<void> {
    co_await SleepFor(ctx, seconds(3600));
    interrupted_at_end = ctx.interrupted;
  });
  interrupter.join();
  EXPECT_TRUE(done);
  EXPECT_TRUE(interrupted_at_end);  // it did not end before the interrupt
}

}  // namespace
}  // namespace locksmith
