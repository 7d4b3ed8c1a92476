// The shard split as a pure function: I/N and the CI variables read, every
// run in exactly one shard, the same split every time, balanced by planned
// time rather than by count, and each run's seed the unsharded suite's.
#include "harness/shard_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "base/seed.h"

namespace locksmith {
namespace {

Suite ThreeCells() {
  auto suite = ParseSuite(nlohmann::json::parse(R"({"seed": 11, "test_count": 4,
      "base": {"time_limit_s": 10, "concurrency": 2},
      "cells": [{"name": "short", "time_limit_s": 2}, {"name": "long", "time_limit_s": 60},
                {"name": "own-seed", "seed": 99, "test_count": 2}]})"),
                          "three", SuiteOverrides{});
  EXPECT_TRUE(suite.ok()) << suite.error();
  return *suite;
}

TEST(ShardPlanTest, ShardSpecIsIOfNCountedFromOne) {
  auto spec = ParseShardSpec("2/3");
  ASSERT_TRUE(spec.ok()) << spec.error();
  EXPECT_EQ(spec->index, 2);
  EXPECT_EQ(spec->total, 3);
  EXPECT_EQ(spec->Text(), "2/3");
  for (const char* bad : {"0/3", "4/3", "1/0", "0/0", "3", "1/", "/3", "a/b", "1/3x", " 1/3", "",
                          "1/1001", "-1/3"}) {
    auto parsed = ParseShardSpec(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.error().rfind("--shard must be I/N", 0), 0u) << parsed.error();
  }
}

// An environment of `vars` for ShardFromEnvironment.
std::function<const char*(const char*)> Env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(ShardPlanTest, AutoReadsGitLabsParallelVariablesThenLocksmithShard) {
  auto gitlab = ShardFromEnvironment(Env({{"CI_NODE_INDEX", "3"}, {"CI_NODE_TOTAL", "4"}}));
  ASSERT_TRUE(gitlab.ok()) << gitlab.error();
  EXPECT_EQ(gitlab->Text(), "3/4");
  auto github = ShardFromEnvironment(Env({{"LOCKSMITH_SHARD", "2/5"}}));
  ASSERT_TRUE(github.ok()) << github.error();
  EXPECT_EQ(github->Text(), "2/5");
  // GitLab's own variables win: they are what the job really is.
  auto both = ShardFromEnvironment(
      Env({{"CI_NODE_INDEX", "1"}, {"CI_NODE_TOTAL", "2"}, {"LOCKSMITH_SHARD", "2/2"}}));
  ASSERT_TRUE(both.ok()) << both.error();
  EXPECT_EQ(both->Text(), "1/2");

  auto none = ShardFromEnvironment(Env({}));
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().find("CI_NODE_INDEX"), std::string::npos) << none.error();
  EXPECT_NE(none.error().find("LOCKSMITH_SHARD"), std::string::npos) << none.error();
  auto half = ShardFromEnvironment(Env({{"CI_NODE_TOTAL", "4"}}));
  ASSERT_FALSE(half.ok());
  EXPECT_NE(half.error().find("only CI_NODE_TOTAL"), std::string::npos) << half.error();
  auto past = ShardFromEnvironment(Env({{"CI_NODE_INDEX", "5"}, {"CI_NODE_TOTAL", "4"}}));
  ASSERT_FALSE(past.ok());
  EXPECT_NE(past.error().find("CI_NODE_INDEX=\"5\""), std::string::npos) << past.error();
  auto bad = ShardFromEnvironment(Env({{"LOCKSMITH_SHARD", "4/3"}}));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().rfind("--shard auto: LOCKSMITH_SHARD: ", 0), 0u) << bad.error();
}

TEST(ShardPlanTest, EveryRunKeepsTheSeedOfTheUnshardedSuite) {
  const Suite suite = ThreeCells();
  const std::vector<PlannedRun> plan = PlanSuiteRuns(suite, 11);
  ASSERT_EQ(plan.size(), 10u);
  // What SuiteRunner ran before shards: the cell's seed or SubSeed(suite, cell), then RepeatSeed.
  EXPECT_EQ(plan[0].seed, SubSeed(11, 0));
  EXPECT_EQ(plan[5].seed, RepeatSeed(SubSeed(11, 1), 1));
  EXPECT_EQ(plan[8].seed, 99u);
  EXPECT_EQ(plan[9].seed, RepeatSeed(99, 1));
  EXPECT_EQ(plan[4].planned_s, 60 + kRunOverheadS);
  for (int total = 1; total <= 12; ++total) {
    std::map<std::pair<size_t, int>, uint64_t> seen;
    for (int index = 1; index <= total; ++index) {
      for (const auto& run : ShardRuns(plan, {index, total})) {
        EXPECT_TRUE(seen.emplace(std::pair{run.cell, run.repeat}, run.seed).second)
            << "run in two shards of " << total;
      }
    }
    ASSERT_EQ(seen.size(), plan.size()) << total << " shards";
    for (const auto& run : plan) EXPECT_EQ((seen[{run.cell, run.repeat}]), run.seed);
  }
}

TEST(ShardPlanTest, TheSplitIsTheSameEveryTimeAndInSuiteOrder) {
  const Suite suite = ThreeCells();
  const std::vector<PlannedRun> plan = PlanSuiteRuns(suite, 11);
  for (int index = 1; index <= 3; ++index) {
    const auto once = ShardRuns(plan, {index, 3});
    const auto again = ShardRuns(PlanSuiteRuns(ThreeCells(), 11), {index, 3});
    ASSERT_EQ(once.size(), again.size());
    for (size_t i = 0; i < once.size(); ++i) {
      EXPECT_EQ(once[i].cell, again[i].cell);
      EXPECT_EQ(once[i].repeat, again[i].repeat);
      if (i > 0) {
        EXPECT_TRUE(std::pair(once[i - 1].cell, once[i - 1].repeat) <
                    std::pair(once[i].cell, once[i].repeat));
      }
    }
  }
  EXPECT_EQ(PlanDigest(suite, plan), PlanDigest(ThreeCells(), PlanSuiteRuns(ThreeCells(), 11)));
  EXPECT_NE(PlanDigest(suite, plan), PlanDigest(suite, PlanSuiteRuns(suite, 12)));
}

TEST(ShardPlanTest, RunsAreBalancedByPlannedTimeNotByCount) {
  // One long run and five short ones over two shards: by count each would
  // take three; by time the long one is a shard to itself.
  EXPECT_EQ(AssignShards({1, 1, 60, 1, 1, 1}, 2), (std::vector<int>{1, 1, 0, 1, 1, 1}));
  // Equal runs go round the shards, lowest first.
  EXPECT_EQ(AssignShards({5, 5, 5, 5, 5}, 3), (std::vector<int>{0, 1, 2, 0, 1}));
  EXPECT_EQ(AssignShards({5, 5}, 4), (std::vector<int>{0, 1}));
  // The suite above: loads differ by no more than its longest run.
  const std::vector<PlannedRun> plan = PlanSuiteRuns(ThreeCells(), 11);
  for (int total = 2; total <= 4; ++total) {
    std::vector<double> load(total, 0);
    for (int index = 1; index <= total; ++index) {
      for (const auto& run : ShardRuns(plan, {index, total})) load[index - 1] += run.planned_s;
    }
    const auto [least, most] = std::minmax_element(load.begin(), load.end());
    EXPECT_LE(*most - *least, 60 + kRunOverheadS) << total << " shards";
  }
  // Four shards: each of the four 60 s runs on a shard of its own.
  std::vector<double> times;
  for (const auto& run : plan) times.push_back(run.planned_s);
  const std::vector<int> four = AssignShards(times, 4);
  std::set<int> long_shards;
  for (size_t i = 4; i < 8; ++i) long_shards.insert(four[i]);
  EXPECT_EQ(long_shards.size(), 4u);
}

}  // namespace
}  // namespace locksmith
