// SuiteFile: matrices, scenarios and explicit cells become validated runs;
// every bad suite is one line naming what is wrong.
#include "harness/suite_file.h"

#include <gtest/gtest.h>

#include <cmath>

namespace locksmith {
namespace {

Result<Suite> Parse(const std::string& text, const SuiteOverrides& overrides = {}) {
  return ParseSuite(nlohmann::json::parse(text), "nightly", overrides);
}

std::vector<std::string> Names(const Suite& suite) {
  std::vector<std::string> names;
  for (const auto& c : suite.cells) names.push_back(c.name);
  return names;
}

TEST(SuiteFileTest, AMatrixIsEveryCombinationOfItsAxesInFileOrder) {
  auto suite = Parse(R"({"test_count": 3, "base": {"time_limit_s": 7, "concurrency": 4},
    "matrix": {"lock": [{"name": "redis", "backend": "redis"},
                        {"backend": "redis", "client": "redis-watchdog"}],
               "nemesis": ["none", "kill"]}})");
  ASSERT_TRUE(suite.ok()) << suite.error();
  EXPECT_EQ(Names(*suite), (std::vector<std::string>{"redis.none", "redis.kill",
                                                     "redis-redis-watchdog.none",
                                                     "redis-redis-watchdog.kill"}));
  const SuiteCell& cell = suite->cells[3];
  EXPECT_EQ(cell.test_count, 3);
  EXPECT_EQ(cell.config.client, "redis-watchdog");
  EXPECT_EQ(cell.config.nemesis, std::vector<std::string>{"kill"});
  EXPECT_EQ(cell.config.time_limit_s, 7);
  EXPECT_EQ(cell.config.concurrency, 4);
  EXPECT_EQ(cell.config.test_name, "redis-redis-watchdog.kill");
  EXPECT_EQ(suite->name, "nightly");
}

TEST(SuiteFileTest, ExcludedCombinationsAreLeftOut) {
  auto suite = Parse(R"({"matrix": {"lock": [{"name": "redis", "backend": "redis"},
                                             {"name": "pg", "backend": "postgres"},
                                             {"name": "etcd", "backend": "etcd"}],
                                    "nemesis": ["none", "kill", "clock"]},
    "exclude": [{"lock": ["pg", "etcd"], "nemesis": "clock"}, {"lock": "etcd", "nemesis": "kill"}]})");
  ASSERT_TRUE(suite.ok()) << suite.error();
  EXPECT_EQ(Names(*suite), (std::vector<std::string>{"redis.none", "redis.kill", "redis.clock",
                                                     "pg.none", "pg.kill", "etcd.none"}));
}

TEST(SuiteFileTest, OverridesApplyToEveryCellAndExplicitCellsKeepTheirCounts) {
  SuiteOverrides overrides;
  overrides.time_limit_s = 2;
  overrides.store = "/tmp/elsewhere";
  overrides.seed = 9;
  auto suite = Parse(R"({"seed": 1, "base": {"time_limit_s": 60},
    "cells": [{"name": "a", "nemesis": "kill", "test_count": 5}, {"name": "b"}]})",
                     overrides);
  ASSERT_TRUE(suite.ok()) << suite.error();
  EXPECT_EQ(*suite->seed, 9u);
  ASSERT_EQ(suite->cells.size(), 2u);
  EXPECT_EQ(suite->cells[0].test_count, 5);
  EXPECT_EQ(suite->cells[1].test_count, 1);
  for (const auto& cell : suite->cells) {
    EXPECT_EQ(cell.config.time_limit_s, 2);
    EXPECT_EQ(cell.config.store, "/tmp/elsewhere");
  }
}

TEST(SuiteFileTest, ATimeScaleShortensTheLimitAndIntervalOfCellsWithoutScriptedSteps) {
  SuiteOverrides overrides;
  overrides.time_scale = 0.25;
  overrides.test_count = 1;
  auto suite = Parse(R"({"test_count": 3,
    "base": {"time_limit_s": 20, "nemesis_interval_s": 4, "hold": "10-50", "lease_ms": 1000},
    "matrix": {"nemesis": ["kill"]},
    "scenarios": ["redis-kill-no-persistence", "redlock-restart-no-persistence"],
    "cells": [{"name": "paused", "nemesis": "client-pause", "client_pause_ms": 2000,
               "test_count": 5}]})",
                     overrides);
  ASSERT_TRUE(suite.ok()) << suite.error();
  ASSERT_EQ(Names(*suite), (std::vector<std::string>{"kill", "redis-kill-no-persistence",
                                                     "redlock-restart-no-persistence",
                                                     "paused"}));
  const RunConfig& kill = suite->cells[0].config;
  EXPECT_EQ(kill.time_limit_s, 5);
  EXPECT_EQ(kill.nemesis_interval_s, 1);
  // Only the schedule scales: a hold, a lease or a fault's length is what
  // the cell is about.
  EXPECT_EQ(kill.ToJson()["hold"], "10-50");
  EXPECT_EQ(kill.ToJson()["lease_ms"], 1000);
  EXPECT_EQ(suite->cells[3].config.ToJson()["client_pause_ms"], 2000);
  // A library scenario on a seeded schedule scales; one with scripted steps
  // keeps the timing its steps are written against.
  RunConfig library;
  ASSERT_TRUE(LoadRunConfigFile(LOCKSMITH_SOURCE_DIR "/scenarios/redis-kill-no-persistence.json",
                                library));
  EXPECT_EQ(suite->cells[1].config.time_limit_s, library.time_limit_s * 0.25);
  EXPECT_EQ(suite->cells[1].config.nemesis_interval_s, library.nemesis_interval_s * 0.25);
  RunConfig scripted;
  ASSERT_TRUE(LoadRunConfigFile(
      LOCKSMITH_SOURCE_DIR "/scenarios/redlock-restart-no-persistence.json", scripted));
  ASSERT_FALSE(scripted.steps.is_null());
  EXPECT_EQ(suite->cells[2].config.time_limit_s, scripted.time_limit_s);
  // --test-count replaces every cell's count, an explicit cell's too.
  for (const auto& cell : suite->cells) EXPECT_EQ(cell.test_count, 1) << cell.name;
}

TEST(SuiteFileTest, ATimeScaleIsAboveZeroAndAtMostAHundred) {
  EXPECT_TRUE(CheckTimeScale(0.01));
  EXPECT_TRUE(CheckTimeScale(100));
  for (double bad : {0.0, -1.0, 100.5, std::nan(""), HUGE_VAL}) {
    Status s = CheckTimeScale(bad);
    ASSERT_FALSE(s) << bad;
    EXPECT_EQ(s.error().rfind("--time-scale must be a number above 0 and at most 100", 0), 0u)
        << s.error();
  }
  SuiteOverrides overrides;
  overrides.time_scale = 0;
  auto suite = Parse(R"({"cells": [{"name": "a"}]})", overrides);
  ASSERT_FALSE(suite.ok());
  EXPECT_NE(suite.error().find("--time-scale"), std::string::npos) << suite.error();
}

TEST(SuiteFileTest, AScaledIntervalBelowTheMinimumNamesTheCell) {
  SuiteOverrides overrides;
  overrides.time_scale = 0.01;
  auto suite = Parse(R"({"base": {"nemesis_interval_s": 5}, "matrix": {"nemesis": ["kill"]}})",
                     overrides);
  ASSERT_FALSE(suite.ok());
  EXPECT_NE(suite.error().find("cell kill: --nemesis-interval"), std::string::npos)
      << suite.error();
}

TEST(SuiteFileTest, ScenarioCellsRunTheLibraryFileAsItIs) {
  auto suite = Parse(R"({"base": {"concurrency": 3}, "scenarios": ["redlock-no-faults"]})");
  ASSERT_TRUE(suite.ok()) << suite.error();
  ASSERT_EQ(suite->cells.size(), 1u);
  EXPECT_EQ(suite->cells[0].scenario, "redlock-no-faults");
  EXPECT_EQ(suite->cells[0].config.backend, "redlock");
  EXPECT_NE(suite->cells[0].config.concurrency, 3);  // the base is for matrix cells
}

TEST(SuiteFileTest, BadSuitesAreOneLineNamingTheProblem) {
  struct Case {
    const char* text;
    const char* says;
  };
  const Case cases[] = {
      {R"([1])", "a suite file is a JSON object"},
      {R"({"matrix": {"nemesis": ["none"]}, "colour": 1})", "unknown key \"colour\""},
      {R"({})", "the suite has no cells"},
      {R"({"matrix": {"nemesis": []}})", "matrix \"nemesis\" must be a non-empty array"},
      {R"({"matrix": {"nemesis": [null]}})", "each value must be"},
      {R"({"matrix": {"nemesis": ["none"]}, "test_count": 0})", "\"test_count\" must be"},
      {R"({"matrix": {"backend": ["redis", "nope"]}})", "cell nope: "},
      {R"({"matrix": {"colour": ["red"]}})", "cell red: "},
      {R"({"matrix": {"nemesis": ["kill"]}, "cells": [{"name": "kill"}]})",
       "two cells are named kill"},
      {R"({"cells": [{"nemesis": "kill"}]})", "each cell is an object with a \"name\""},
      {R"({"scenarios": ["no-such-scenario"]})", "scenarios: "},
      {R"({"seed": -1, "cells": [{"name": "a"}]})", "\"seed\" must be a whole number"},
      {R"({"cells": [{"name": "a", "concurrency": 0}]})", "cell a: "},
      {R"({"cells": [{"name": "a"}], "exclude": []})", "the suite has none"},
      {R"({"matrix": {"nemesis": ["none"]}, "exclude": {"nemesis": "none"}})",
       "\"exclude\" must be a list"},
      {R"({"matrix": {"nemesis": ["none"]}, "exclude": [{"lock": "x"}]})",
       "\"lock\" is not a matrix axis"},
      {R"({"matrix": {"nemesis": ["none"]}, "exclude": [{"nemesis": "clcok"}]})",
       "matrix \"nemesis\" has no value named \"clcok\""},
      {R"({"matrix": {"nemesis": ["none"]}, "exclude": [{"nemesis": []}]})",
       "\"exclude\" must be a list"},
  };
  for (const auto& c : cases) {
    auto suite = Parse(c.text);
    ASSERT_FALSE(suite.ok()) << c.text;
    EXPECT_NE(suite.error().find(c.says), std::string::npos) << c.text << " -> " << suite.error();
    EXPECT_EQ(suite.error().find('\n'), std::string::npos) << suite.error();
  }
}

TEST(SuiteFileTest, TheFirstRepeatKeepsTheCellSeedAndTheOthersDiffer) {
  EXPECT_EQ(RepeatSeed(123, 0), 123u);
  EXPECT_NE(RepeatSeed(123, 1), 123u);
  EXPECT_NE(RepeatSeed(123, 1), RepeatSeed(123, 2));
  EXPECT_EQ(RepeatSeed(123, 2), RepeatSeed(123, 2));
}

}  // namespace
}  // namespace locksmith
