// SuiteFile: matrices, scenarios and explicit cells become validated runs;
// every bad suite is one line naming what is wrong.
#include "harness/suite_file.h"

#include <gtest/gtest.h>

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
