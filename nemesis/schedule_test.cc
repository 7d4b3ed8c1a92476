#include "nemesis/schedule.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "nemesis/client_pause_nemesis.h"
#include "nemesis/kill_nemesis.h"
#include "nemesis/pause_nemesis.h"

namespace locksmith {
namespace {

KillOptions Kill(int64_t restart_delay_ms) {
  KillOptions kill;
  kill.restart_delay_ms = restart_delay_ms;
  return kill;
}

ScheduleOptions KillSchedule(int64_t restart_delay_ms = 1500) {
  ScheduleOptions o;
  o.families = {{"kill", KillWindow(Kill(restart_delay_ms))}};
  o.interval_s = 5;
  o.time_limit_s = 30;
  o.seed = 7;
  return o;
}

TEST(ScheduleTest, EachKillIsAWindowItsRestartEndsAfterTheDelay) {
  auto s = BuildSchedule(KillSchedule());
  ASSERT_EQ(s.size(), 10u);  // windows at 5, 10, 15, 20, 25 s
  std::map<int64_t, int64_t> began;  // window -> when
  int64_t next_window = 0;
  for (const auto& f : s) {
    EXPECT_EQ(f.mark.family, "kill");
    if (f.mark.begins) {
      EXPECT_EQ(f.op.f, "kill");
      EXPECT_EQ(f.op.value, nlohmann::json({{"target", "one"}}));  // resolved when it starts
      EXPECT_EQ(f.mark.window, next_window++);
      EXPECT_TRUE(began.empty()) << "a family's windows never overlap";
      began[f.mark.window] = f.at_ms;
    } else {
      EXPECT_EQ(f.op.f, "restart");
      ASSERT_TRUE(began.count(f.mark.window)) << f.mark.window;
      EXPECT_EQ(f.at_ms - began[f.mark.window], 1500);
      began.erase(f.mark.window);
    }
  }
  EXPECT_EQ(next_window, 5);
  EXPECT_TRUE(began.empty());
}

TEST(ScheduleTest, ComposedFamiliesRunOnTheirOwnStaggeredSchedules) {
  ScheduleOptions o = KillSchedule();
  PauseOptions pause;
  pause.pause_ms = 1000;
  ClientPauseOptions client;
  client.ms = 800;
  o.families = {{"kill", KillWindow(Kill(1500))},
                {"pause", PauseWindow(pause)},
                {"client-pause", ClientPauseWindow(client)}};
  o.time_limit_s = 60;
  const auto s = BuildSchedule(o);
  std::map<std::string, std::vector<int64_t>> starts;
  std::map<std::string, int> open;
  std::set<int64_t> windows;
  for (const auto& f : s) {
    if (f.mark.begins) {
      starts[f.mark.family].push_back(f.at_ms);
      EXPECT_EQ(open[f.mark.family]++, 0) << f.mark.family << " overlaps itself";
      EXPECT_TRUE(windows.insert(f.mark.window).second);
    } else {
      --open[f.mark.family];
    }
  }
  ASSERT_EQ(starts.size(), 3u);
  // Family i of 3 starts its k-th window in [5000 (k+1) + i*5000/3, + a quarter interval].
  const std::vector<std::string> order = {"kill", "pause", "client-pause"};
  for (size_t i = 0; i < order.size(); ++i) {
    const auto& at = starts[order[i]];
    EXPECT_GE(at.size(), 10u) << order[i];
    for (size_t k = 0; k < at.size(); ++k) {
      const int64_t slot = 5000 * static_cast<int64_t>(k + 1) + static_cast<int64_t>(i) * 5000 / 3;
      EXPECT_GE(at[k], slot) << order[i] << " " << k;
      EXPECT_LE(at[k], slot + 1250) << order[i] << " " << k;
    }
  }
  for (const auto& [family, n] : open) EXPECT_EQ(n, 0) << family;
  // Windows are numbered in the order they start.
  int64_t last = -1;
  for (const auto& f : s) {
    if (!f.mark.begins) continue;
    EXPECT_EQ(f.mark.window, last + 1);
    last = f.mark.window;
  }
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
    differs |= a[i].at_ms != c[i].at_ms;
  }
  EXPECT_TRUE(differs);
}

// Kills any node; remembers nothing.
class AnyKillable : public Killable {
 public:
  Status KillNode(const std::string&) override { return OkStatus(); }
  Status StartNode(const std::string&) override { return OkStatus(); }
};

// The nodes each fault of `schedule` hits, as a kill nemesis seeded with
// `seed` resolves their targets on a five-node table, in order.
std::vector<nlohmann::json> TargetsHit(const std::vector<ScheduledFault>& schedule,
                                       uint64_t seed) {
  NodeTable table;
  for (int i = 1; i <= 5; ++i) {
    table.push_back({"n" + std::to_string(i), kPrimaryRole, "n" + std::to_string(i)});
  }
  AnyKillable service;
  KillNemesis nemesis(service, [table] { return table; }, seed);
  std::vector<nlohmann::json> hit;
  for (const auto& fault : schedule) {
    if (fault.op.f == "kill") hit.push_back(nemesis.Invoke(fault.op).value["nodes"]);
  }
  return hit;
}

// Replay: one seed gives one fault schedule: the same families in the same
// order at the same times, each window numbered alike, and each fault's
// targets, resolved when it starts, the same nodes.
TEST(ScheduleTest, OneSeedReplaysTheScheduleItsOrderTimesAndTargets) {
  auto options = [](uint64_t seed) {
    ScheduleOptions o = KillSchedule();
    KillOptions kill = Kill(300);
    kill.target = "minority";
    PauseOptions pause;
    o.families = {{"kill", KillWindow(kill)}, {"pause", PauseWindow(pause)}};
    o.time_limit_s = 60;
    o.seed = seed;
    return o;
  };
  const auto a = BuildSchedule(options(11));
  const auto b = BuildSchedule(options(11));
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a, b);
  EXPECT_EQ(TargetsHit(a, 99), TargetsHit(b, 99));
  // Another seed draws other choices (these two seeds are known to).
  EXPECT_NE(BuildSchedule(options(12)), a);
  EXPECT_NE(TargetsHit(a, 100), TargetsHit(a, 99));
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
