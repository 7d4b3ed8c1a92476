#include "nemesis/toxics.h"

#include <gtest/gtest.h>

#include <set>

namespace locksmith {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

TEST(ToxicsTest, ADelayAppliesToTheDirectionsItNames) {
  auto both = ToxicsFromJson({{"latency_ms", 300}, {"jitter_ms", 50}});
  ASSERT_TRUE(both.ok()) << both.error();
  EXPECT_EQ(both->upstream.latency_ms, 300);
  EXPECT_EQ(both->downstream.jitter_ms, 50);
  EXPECT_FALSE(both->reset);
  auto up = ToxicsFromJson({{"latency_ms", 300}, {"direction", "upstream"}});
  ASSERT_TRUE(up.ok());
  EXPECT_EQ(up->upstream.latency_ms, 300);
  EXPECT_TRUE(up->downstream.Harmless());
  auto stall = ToxicsFromJson({{"mode", "stall"}, {"direction", "downstream"}});
  ASSERT_TRUE(stall.ok());
  EXPECT_TRUE(stall->downstream.stall);
  EXPECT_FALSE(stall->upstream.stall);
  auto reset = ToxicsFromJson({{"mode", "reset"}});
  ASSERT_TRUE(reset.ok());
  EXPECT_TRUE(reset->reset);
  EXPECT_TRUE(reset->upstream.Harmless() && reset->downstream.Harmless());
  EXPECT_EQ(ToxicsJson(*stall)["downstream"]["stall"], true);
}

TEST(ToxicsTest, BadToxicsNameTheirField) {
  EXPECT_EQ(ToxicsFromJson({{"mode", "slowly"}}).error(),
            "\"mode\" must be one of delay, stall, reset, not \"slowly\"");
  EXPECT_EQ(ToxicsFromJson({{"latency_ms", -1}}).error(),
            "\"latency_ms\" must be a whole number from 0 to 60000, not -1");
  EXPECT_EQ(ToxicsFromJson({{"latency_ms", 10}, {"jitter_ms", 20}}).error(),
            "\"jitter_ms\" (20) must be at most \"latency_ms\" (10)");
  EXPECT_EQ(ToxicsFromJson(nlohmann::json::object()).error(),
            "a delay needs \"latency_ms\" or \"bandwidth_kbs\" above 0");
  EXPECT_FALSE(ToxicsFromJson({{"direction", "sideways"}, {"latency_ms", 1}}).ok());
}

TEST(ToxicsTest, ChunksLeaveAfterTheLatencyInOrderAndAtTheCappedRate) {
  std::mt19937_64 rng(1);
  const Clock::time_point t0{};
  const auto start = t0 + std::chrono::hours(1);
  Toxics latency{.latency_ms = 100};
  EXPECT_EQ(DeliveryTime(latency, 10, start, {}, rng), start + milliseconds(100));
  // A chunk never overtakes the one before it.
  EXPECT_EQ(DeliveryTime(latency, 10, start, start + milliseconds(500), rng),
            start + milliseconds(500));
  // 1000 bytes at 10 KB/s take 100 ms, after the previous chunk has gone.
  Toxics rate{.bandwidth_kbs = 10};
  EXPECT_EQ(DeliveryTime(rate, 1000, start, start + milliseconds(50), rng),
            start + milliseconds(150));
  // Jitter stays within its bounds, and varies.
  Toxics jitter{.latency_ms = 100, .jitter_ms = 40};
  std::set<int64_t> seen;
  for (int i = 0; i < 200; ++i) {
    const auto due = DeliveryTime(jitter, 1, start, {}, rng);
    const int64_t us = std::chrono::duration_cast<microseconds>(due - start).count();
    EXPECT_GE(us, 60'000);
    EXPECT_LE(us, 140'000);
    seen.insert(us);
  }
  EXPECT_GT(seen.size(), 100u);
}

}  // namespace
}  // namespace locksmith
