#include "nemesis/schedule.h"

#include <gtest/gtest.h>

#include <map>

#include "nemesis/kill_nemesis.h"

namespace locksmith {
namespace {

ScheduleOptions KillSchedule(int64_t restart_delay_ms = 1500) {
  ScheduleOptions o;
  o.families = {{"kill", KillCycle(restart_delay_ms)}};
  o.nodes = {"n1", "n2", "n3"};
  o.interval_s = 5;
  o.time_limit_s = 30;
  o.seed = 7;
  return o;
}

TEST(ScheduleTest, EveryKillHasItsStartOnTheSameNodeAfterTheDelay) {
  auto s = BuildSchedule(KillSchedule());
  ASSERT_EQ(s.size(), 10u);  // cycles at 5, 10, 15, 20, 25 s
  std::map<std::string, int64_t> down_since;
  for (const auto& f : s) {
    const std::string node = f.op.value["node"];
    if (f.op.f == "kill") {
      EXPECT_FALSE(down_since.count(node)) << "killed twice: " << node;
      down_since[node] = f.at_ms;
    } else {
      ASSERT_EQ(f.op.f, "restart");
      ASSERT_TRUE(down_since.count(node));
      EXPECT_EQ(f.at_ms - down_since[node], 1500);
      down_since.erase(node);
    }
  }
  EXPECT_TRUE(down_since.empty());
}

TEST(ScheduleTest, EachFaultIsAWindowItsKillBeginsAndItsRestartEnds) {
  auto s = BuildSchedule(KillSchedule());
  std::map<int64_t, std::string> open;  // window -> node
  int64_t next_window = 0;
  for (const auto& f : s) {
    EXPECT_EQ(f.mark.family, "kill");
    const std::string node = f.op.value["node"];
    if (f.mark.begins) {
      EXPECT_EQ(f.op.f, "kill");
      EXPECT_EQ(f.mark.window, next_window++);
      open[f.mark.window] = node;
    } else {
      EXPECT_EQ(f.op.f, "restart");
      ASSERT_TRUE(open.count(f.mark.window)) << f.mark.window;
      EXPECT_EQ(open[f.mark.window], node);
      open.erase(f.mark.window);
    }
  }
  EXPECT_EQ(next_window, 5);
  EXPECT_TRUE(open.empty());
}

TEST(ScheduleTest, StartsAfterAWarmUpAndStaysWithinTheLimit) {
  auto s = BuildSchedule(KillSchedule());
  for (const auto& f : s) {
    if (f.op.f == "kill") {
      EXPECT_GE(f.at_ms, 5000);
      EXPECT_LT(f.at_ms, 30000);
    }
  }
  for (size_t i = 1; i < s.size(); ++i) EXPECT_LE(s[i - 1].at_ms, s[i].at_ms);
}

TEST(ScheduleTest, DowntimeNeverRunsIntoTheNextCycle) {
  auto o = KillSchedule(60'000);
  auto s = BuildSchedule(o);
  for (size_t i = 0; i + 1 < s.size(); i += 2) {
    EXPECT_LT(s[i + 1].at_ms, (s[i].at_ms / 5000 + 1) * 5000);
  }
}

TEST(ScheduleTest, SameSeedSameScheduleOtherSeedOtherChoices) {
  auto a = BuildSchedule(KillSchedule());
  auto b = BuildSchedule(KillSchedule());
  auto o = KillSchedule();
  o.seed = 8;
  auto c = BuildSchedule(o);
  ASSERT_EQ(a.size(), b.size());
  bool differs = false;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].at_ms, b[i].at_ms);
    EXPECT_EQ(a[i].op.value, b[i].op.value);
    differs |= a[i].at_ms != c[i].at_ms || a[i].op.value != c[i].op.value;
  }
  EXPECT_TRUE(differs);
}

TEST(ScheduleTest, NothingToDoGivesAnEmptySchedule) {
  auto o = KillSchedule();
  o.families.clear();
  EXPECT_TRUE(BuildSchedule(o).empty());
  o = KillSchedule();
  o.time_limit_s = 4;  // shorter than the warm-up
  EXPECT_TRUE(BuildSchedule(o).empty());
  o = KillSchedule();
  o.interval_s = 1e-9;  // rounds to no time at all: must not loop forever
  EXPECT_TRUE(BuildSchedule(o).empty());
}

}  // namespace
}  // namespace locksmith
