// SuiteRunner on fakes (no root, no servers): every repeat of every cell
// runs in its own directory under the suite's, the tables link each run, the
// exit code is the worst run's, and a signal stops the suite.
#include "harness/suite_runner.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "base/testing/temp_dir.h"
#include "harness/signal_watcher.h"
#include "harness/testing/fake_run_modules.h"

namespace locksmith {
namespace {

using testing::FakeRunModules;
using testing::TempDir;

Suite TwoCells(const std::string& store) {
  auto suite = ParseSuite(nlohmann::json::parse(R"({"seed": 5, "test_count": 2,
      "base": {"time_limit_s": 0.2, "concurrency": 3},
      "cells": [{"name": "fine"}, {"name": "broken"}]})"),
                          "pair", SuiteOverrides{std::nullopt, store, std::nullopt});
  EXPECT_TRUE(suite.ok()) << suite.error();
  return *suite;
}

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
}

TEST(SuiteRunnerTest, EveryRepeatRunsInItsOwnDirectoryAndTheTablesLinkThemAll) {
  TempDir store;
  SignalWatcher signals;
  std::ostringstream out;
  const SuiteOutcome outcome = ExecuteSuite(TwoCells(store.path()), signals, FakeRunModules(), out);
  ASSERT_TRUE(outcome.error.empty()) << outcome.error;
  EXPECT_EQ(outcome.exit_code, 1);  // the broken cell's invalid runs
  ASSERT_EQ(outcome.record.runs.size(), 4u);
  EXPECT_EQ(outcome.dir.rfind(store.path() + "/suites/pair/", 0), 0u) << outcome.dir;

  const nlohmann::json summary = ReadJson(outcome.dir + "/summary.json");
  ASSERT_FALSE(summary.is_discarded());
  EXPECT_EQ(summary["completed_runs"], 4);
  EXPECT_EQ(summary["cells"]["fine"]["violations"], 0);
  EXPECT_EQ(summary["cells"]["broken"]["violations"], 2);
  std::ifstream index_file(outcome.dir + "/index.html");
  std::stringstream index;
  index << index_file.rdbuf();
  std::set<std::string> dirs;
  for (const auto& run : outcome.record.runs) {
    ASSERT_FALSE(run.dir.empty());
    dirs.insert(run.dir);
    EXPECT_TRUE(std::filesystem::exists(outcome.dir + "/" + run.dir + "/report.html")) << run.dir;
    EXPECT_NE(index.str().find("href=\"" + run.dir + "/report.html\""), std::string::npos);
  }
  EXPECT_EQ(dirs.size(), 4u);
  EXPECT_TRUE(std::filesystem::exists(outcome.dir + "/junit.xml"));

  // Run 0 of a cell replays with the cell's seed; the repeats differ.
  const auto& runs = outcome.record.runs;
  EXPECT_NE(runs[0].seed, runs[1].seed);
  EXPECT_EQ(runs[1].seed, RepeatSeed(runs[0].seed, 1));
  const nlohmann::json config = ReadJson(outcome.dir + "/" + runs[1].dir + "/config.json");
  EXPECT_EQ(config["seed"], runs[1].seed);
}

// The console's figures read as people read them: the median time to the
// first violation in the unit that reads best, to four digits at most.
TEST(SuiteRunnerTest, TheConsoleSummaryRoundsTheMedianTimeToTheFirstViolation) {
  SuiteOutcome outcome;
  outcome.dir = "/store/suites/quick";
  outcome.record.name = "quick";
  outcome.record.cells = {"slow", "fast"};
  outcome.record.planned_runs = 4;
  for (const auto& [cell, first] : std::vector<std::pair<std::string, double>>{
           {"slow", 2.72586}, {"slow", 2.72586}, {"fast", 0.0421337}, {"fast", 0.0421337}}) {
    SuiteRun run;
    run.cell = cell;
    run.verdict = "invalid";
    run.exit_code = 1;
    run.first_violation_s = first;
    outcome.record.runs.push_back(run);
  }
  std::ostringstream out;
  PrintSuiteSummary(outcome, out);
  EXPECT_NE(out.str().find("  slow: 2 of 2 invalid"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find(", median time to the first violation 2.726 s\n"), std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find(", median time to the first violation 42.1 ms\n"), std::string::npos)
      << out.str();
}

TEST(SuiteRunnerTest, ASignalStopsTheSuiteAfterTheCurrentRunWithTheTablesWritten) {
  TempDir store;
  SignalWatcher signals;
  auto suite = ParseSuite(nlohmann::json::parse(R"({"test_count": 3,
      "base": {"time_limit_s": 0.2, "concurrency": 2},
      "cells": [{"name": "fine"}, {"name": "interrupted"}, {"name": "never"}]})"),
                          "stopped", SuiteOverrides{std::nullopt, store.path(), std::nullopt});
  ASSERT_TRUE(suite.ok()) << suite.error();
  std::ostringstream out;
  const SuiteOutcome outcome = ExecuteSuite(*suite, signals, FakeRunModules(&signals), out);
  // Three runs of "fine", then the first of "interrupted", torn down and kept.
  ASSERT_EQ(outcome.record.runs.size(), 4u) << out.str();
  EXPECT_EQ(outcome.record.runs.back().cell, "interrupted");
  EXPECT_EQ(outcome.record.interrupted, "by a signal during interrupted #0 (run 4 of 9)");
  const nlohmann::json summary = ReadJson(outcome.dir + "/summary.json");
  EXPECT_EQ(summary["completed_runs"], 4);
  EXPECT_EQ(summary["planned_runs"], 9);
  EXPECT_EQ(summary["interrupted"], outcome.record.interrupted);
}

TEST(SuiteRunnerTest, ADamagedSummaryInTheStoreIsSkippedNotFatal) {
  // Another suite's summary.json, damaged: parses, but of the wrong types.
  TempDir store;
  const std::string other = store.path() + "/suites/other/20260101T000000.000Z";
  std::filesystem::create_directories(other);
  std::ofstream(other + "/summary.json") << R"({"suite": "other", "planned_runs": "many",
                                                "runs": []})";
  SignalWatcher signals;
  std::ostringstream out;
  ::testing::internal::CaptureStderr();
  const SuiteOutcome outcome = ExecuteSuite(TwoCells(store.path()), signals, FakeRunModules(), out);
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(outcome.error.empty()) << outcome.error;
  EXPECT_EQ(outcome.record.runs.size(), 4u);
  // Said when the suite starts and when it ends.
  const std::string warning = "locksmith: warning: store index: skipped " + other +
                              "/summary.json: \"planned_runs\" must be a whole number";
  size_t said = 0;
  for (size_t at = err.find(warning); at != std::string::npos; at = err.find(warning, at + 1)) {
    ++said;
  }
  EXPECT_EQ(said, 2u) << err;
  std::ifstream index(store.path() + "/index.html");
  std::stringstream html;
  html << index.rdbuf();
  EXPECT_NE(html.str().find("suites/pair/"), std::string::npos);
}

}  // namespace
}  // namespace locksmith
