// SuiteTrend: the regression rule as a pure function, the acquire-time
// threshold, and CompareNights on nights made by the summary writer.
#include "reports/suite_trend.h"

#include <gtest/gtest.h>

#include "reports/testing/suite_nights.h"

namespace locksmith {
namespace {

using testing::FiveNights;
using testing::NightRecord;

// k of n judged invalid.
RunGroup Judged(int k, int n) {
  RunGroup g;
  g.runs = g.judged = n;
  g.violations = k;
  g.rate = WilsonInterval(k, n);
  return g;
}

TEST(SuiteTrendTest, AViolationOnACellCleanOnEveryEarlierNightRegresses) {
  const Regression r = JudgeRegression({Judged(0, 10), Judged(0, 10)}, Judged(1, 10));
  EXPECT_TRUE(r.newly_violating);
  EXPECT_FALSE(r.rate_rose);  // 1 of 10 is [2-40%], 0 of 10 [0-28%]: they overlap
  EXPECT_TRUE(r.any());
}

TEST(SuiteTrendTest, AViolationIsNoRegressionWhenAnEarlierNightHadOne) {
  EXPECT_FALSE(JudgeRegression({Judged(2, 10), Judged(0, 10)}, Judged(1, 10)).any());
  EXPECT_FALSE(JudgeRegression({Judged(1, 10)}, Judged(3, 10)).any());  // overlapping
}

TEST(SuiteTrendTest, ARateWhoseIntervalLiesWhollyAboveTheLastNightsRegresses) {
  // 1 of 10: [1.8-40.4%]; 9 of 10: [59.6-98.2%].
  const Regression r = JudgeRegression({Judged(0, 10), Judged(1, 10)}, Judged(9, 10));
  EXPECT_TRUE(r.rate_rose);
  EXPECT_FALSE(r.newly_violating);
  // Compared with the last judged night only: an old bad night does not hide it.
  EXPECT_TRUE(JudgeRegression({Judged(10, 10), Judged(0, 20)}, Judged(10, 10)).rate_rose);
  // 2 of 10 [5.7-51%] and 5 of 10 [23.7-76.3%] overlap.
  EXPECT_FALSE(JudgeRegression({Judged(2, 10)}, Judged(5, 10)).any());
}

TEST(SuiteTrendTest, NoHistoryAFallingRateOrANightNotJudgedNeverRegresses) {
  EXPECT_FALSE(JudgeRegression({}, Judged(5, 5)).any());
  EXPECT_FALSE(JudgeRegression({Judged(5, 5)}, Judged(0, 5)).any());
  RunGroup unjudged;
  unjudged.runs = 5;  // every run unknown
  EXPECT_FALSE(JudgeRegression({Judged(0, 5)}, unjudged).any());
  // Nights not judged are no history: nothing to regress from.
  EXPECT_FALSE(JudgeRegression({unjudged, unjudged}, Judged(3, 5)).any());
  // ... and are skipped, not taken for the last night.
  EXPECT_TRUE(JudgeRegression({Judged(0, 5), unjudged}, Judged(3, 5)).newly_violating);
}

TEST(SuiteTrendTest, AnAcquireTimeChangesByAQuarterAndHalfAMillisecond) {
  EXPECT_TRUE(AcquireTimeChanged(2.0, 2.5));
  EXPECT_TRUE(AcquireTimeChanged(2.5, 2.0));
  EXPECT_FALSE(AcquireTimeChanged(2.0, 2.4));   // 20%
  EXPECT_FALSE(AcquireTimeChanged(0.2, 0.6));   // 3x, but 0.4 ms
  EXPECT_TRUE(AcquireTimeChanged(std::nullopt, 1.0));
  EXPECT_FALSE(AcquireTimeChanged(std::nullopt, std::nullopt));
}

TEST(SuiteTrendTest, IdenticalNightsChangeNothing) {
  const auto nights = FiveNights();
  EXPECT_TRUE(CompareNights({&nights[3], &nights[3]}).empty());
  EXPECT_TRUE(CompareNights({&nights[0]}).empty());
}

TEST(SuiteTrendTest, TheFifthNightRegressesOneCellAndListsAnAcquireTime) {
  const auto nights = FiveNights();
  const auto changes = CompareNights({&nights[3], &nights[4]});
  // kill-clean's p50 moved 0.1 ms and redlock-clock only its in-doubt share: not listed.
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].cell, "zk-partition");
  EXPECT_EQ(changes[0].changes, std::vector<std::string>{"acquire p99 20 ms -> 80 ms"});
  EXPECT_FALSE(changes[0].regression.any());
  EXPECT_EQ(changes[1].cell, "replica-failover");
  EXPECT_TRUE(changes[1].regression.newly_violating);
  EXPECT_EQ(changes[1].changes,
            (std::vector<std::string>{"verdict valid -> invalid",
                                      "violations 0 of 5 invalid [0–43%] -> 3 of 5 invalid "
                                      "[23–88%]"}));
  EXPECT_EQ(changes[1].why,
            "violations on a cell clean on every earlier night: 0 of 5 invalid [0–43%] -> 3 of "
            "5 invalid [23–88%]");
}

TEST(SuiteTrendTest, CellsAddedAndGoneAreListedNeverRegressed) {
  const SuiteRecord before = NightRecord("s", {{"a", 5, 0}, {"gone", 5, 0}});
  const SuiteRecord after = NightRecord("s", {{"a", 5, 0}, {"new", 5, 4}});
  const auto changes = CompareNights({&before, &after});
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].cell, "new");
  EXPECT_EQ(changes[0].changes[0], "new cell: 4 of 5 invalid [38–96%]");
  EXPECT_FALSE(changes[0].regression.any());
  EXPECT_EQ(changes[1].cell, "gone");
  EXPECT_FALSE(changes[1].now.has_value());
}

TEST(SuiteTrendTest, WithHistoryACellThatViolatedBeforeIsNotNewlyViolating) {
  const SuiteRecord n1 = NightRecord("s", {{"a", 5, 1}});
  const SuiteRecord n2 = NightRecord("s", {{"a", 5, 0}});
  const SuiteRecord n3 = NightRecord("s", {{"a", 5, 1}});
  EXPECT_TRUE(CompareNights({&n2, &n3})[0].regression.newly_violating);  // one earlier night
  EXPECT_FALSE(CompareNights({&n1, &n2, &n3})[0].regression.any());     // the whole history
}

}  // namespace
}  // namespace locksmith
