#include "nemesis/shim_time.h"

#include <gtest/gtest.h>

namespace locksmith::shim_time {
namespace {

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kT0 = 1'700'000'000 * kNsPerSec;  // some real time

TEST(ShimTime, IdentityLeavesTheClockAlone) {
  const ClockParams p;
  EXPECT_TRUE(IsIdentity(p));
  EXPECT_EQ(FakeNs(p, kT0), kT0);
  EXPECT_EQ(FakeNs(p, -5), -5);
}

TEST(ShimTime, BumpsAddUp) {
  ClockParams p = Bumped(ClockParams{}, 60'000 * kMs);
  EXPECT_FALSE(IsIdentity(p));
  EXPECT_EQ(FakeNs(p, kT0), kT0 + 60'000 * kMs);
  p = Bumped(p, -90'000 * kMs);
  EXPECT_EQ(FakeNs(p, kT0), kT0 - 30'000 * kMs);
}

TEST(ShimTime, DriftRunsFromItsAnchor) {
  const ClockParams p = WithRate(ClockParams{}, kT0, 2 * kRealRate);
  EXPECT_EQ(FakeNs(p, kT0), kT0);  // no jump when the drift starts
  EXPECT_EQ(FakeNs(p, kT0 + 500 * kMs), kT0 + 1000 * kMs);
  const ClockParams half = WithRate(ClockParams{}, kT0, kRealRate / 2);
  EXPECT_EQ(FakeNs(half, kT0 + 10 * kNsPerSec), kT0 + 5 * kNsPerSec);
  const ClockParams stopped = WithRate(ClockParams{}, kT0, 0);
  EXPECT_EQ(FakeNs(stopped, kT0 + 3 * kNsPerSec), kT0);
}

TEST(ShimTime, DriftIsExactForLongSpansAndOddRates) {
  // 1.000001 for ten days: 864 ms ahead, without overflow or rounding drift.
  const ClockParams p = WithRate(ClockParams{}, kT0, kRealRate + 1);
  const int64_t ten_days = int64_t{864'000} * kNsPerSec;
  EXPECT_EQ(FakeNs(p, kT0 + ten_days), kT0 + ten_days + 864 * kMs);
  // The largest rate over a day stays within int64.
  const ClockParams fast = WithRate(ClockParams{}, kT0, kMaxRate);
  EXPECT_EQ(FakeNs(fast, kT0 + 86'400 * kNsPerSec) - kT0, int64_t{86'400'000} * kNsPerSec);
}

TEST(ShimTime, ChangingTheRateKeepsTheClockContinuous) {
  const ClockParams fast = WithRate(ClockParams{}, kT0, 3 * kRealRate);
  const int64_t later = kT0 + 2 * kNsPerSec;
  const int64_t before_change = FakeNs(fast, later);
  const ClockParams real = WithRate(fast, later, kRealRate);
  EXPECT_EQ(FakeNs(real, later), before_change);
  EXPECT_EQ(FakeNs(real, later + kNsPerSec), before_change + kNsPerSec);
  EXPECT_EQ(real.offset_ns, 4 * kNsPerSec);
}

TEST(ShimTime, BumpDuringDriftKeepsTheDrift) {
  const ClockParams p = Bumped(WithRate(ClockParams{}, kT0, 2 * kRealRate), 10 * kMs);
  EXPECT_EQ(FakeNs(p, kT0 + 100 * kMs), kT0 + 200 * kMs + 10 * kMs);
}

TEST(ShimTime, StrobeIsASquareWaveForItsDuration) {
  // ±50 ms, period 200 ms, for 1 s from kT0.
  const ClockParams p = WithStrobe(Bumped(ClockParams{}, kMs), kT0, 50 * kMs, 200 * kMs,
                                   1000 * kMs);
  auto offset = [&](int64_t after_ms) {
    return FakeNs(p, kT0 + after_ms * kMs) - kT0 - after_ms * kMs;
  };
  EXPECT_EQ(offset(-1), kMs);  // before: the bump only
  EXPECT_EQ(offset(0), kMs + 50 * kMs);
  EXPECT_EQ(offset(99), kMs + 50 * kMs);
  EXPECT_EQ(offset(100), kMs - 50 * kMs);
  EXPECT_EQ(offset(199), kMs - 50 * kMs);
  EXPECT_EQ(offset(200), kMs + 50 * kMs);
  EXPECT_EQ(offset(999), kMs - 50 * kMs);
  EXPECT_EQ(offset(1000), kMs);  // after: back to the bump
  EXPECT_EQ(StrobeNs(ClockParams{}, kT0), 0);
}

TEST(ShimTime, SplitRoundsTowardMinusInfinity) {
  EXPECT_EQ(Split(kT0 + 5).sec, kT0 / kNsPerSec);
  EXPECT_EQ(Split(kT0 + 5).nsec, 5);
  EXPECT_EQ(Split(-1).sec, -1);
  EXPECT_EQ(Split(-1).nsec, kNsPerSec - 1);
  EXPECT_EQ(Split(-kNsPerSec).sec, -1);
  EXPECT_EQ(Split(-kNsPerSec).nsec, 0);
  const SplitTime t = Split(-2 * kNsPerSec + 3);
  EXPECT_EQ(Join(t.sec, t.nsec), -2 * kNsPerSec + 3);
}

TEST(ShimTime, ControlRecordRoundTrips) {
  const ClockParams p = WithStrobe(WithRate(Bumped(ClockParams{}, -7 * kMs), kT0, 1'500'000),
                                   kT0 + 1, 3 * kMs, 40 * kMs, 900 * kMs);
  unsigned char bytes[kControlSize] = {};
  EncodeControl(p, 42, bytes);
  ClockParams got;
  uint64_t generation = 0;
  ASSERT_TRUE(DecodeControl(bytes, kControlSize, &got, &generation));
  EXPECT_EQ(got, p);
  EXPECT_EQ(generation, 42u);
  // Little-endian whatever the host: the generation's low byte comes first.
  EXPECT_EQ(bytes[8], 42);
}

TEST(ShimTime, TornShortOrForeignRecordsAreRefused) {
  unsigned char bytes[kControlSize] = {};
  EncodeControl(Bumped(ClockParams{}, kMs), 1, bytes);
  ClockParams got = Bumped(ClockParams{}, 5);
  uint64_t generation = 7;
  EXPECT_FALSE(DecodeControl(bytes, kControlSize - 1, &got, &generation));
  unsigned char torn[kControlSize];
  for (size_t i = 0; i < kControlSize; ++i) torn[i] = bytes[i];
  torn[20] ^= 1;  // an offset byte from another write
  EXPECT_FALSE(DecodeControl(torn, kControlSize, &got, &generation));
  torn[20] ^= 1;
  torn[0] = 'X';
  EXPECT_FALSE(DecodeControl(torn, kControlSize, &got, &generation));
  // A well-formed record with a negative rate is not applied either.
  ClockParams bad;
  bad.rate_ppm = -1;
  EncodeControl(bad, 2, torn);
  EXPECT_FALSE(DecodeControl(torn, kControlSize, &got, &generation));
  EXPECT_EQ(got, Bumped(ClockParams{}, 5));  // untouched
  EXPECT_EQ(generation, 7u);
}

}  // namespace
}  // namespace locksmith::shim_time
