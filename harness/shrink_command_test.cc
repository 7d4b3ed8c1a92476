#include "harness/shrink_command.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <sstream>
#include <thread>

#include "base/exit_codes.h"
#include "base/testing/file_text.h"
#include "base/testing/temp_dir.h"
#include "harness/signal_watcher.h"
#include "harness/testing/shrink_run_dir.h"

namespace locksmith {
namespace {

using testing::FileText;
using testing::TempDir;

// A fake replay of the run of shrink_run_dir.h: the unsafe grant comes
// back when the kill at 2 s is among the steps and the run lasts 4 s or more.
struct FakeTries {
  int runs = 0;
  std::chrono::milliseconds each{0};
  bool never = false;

  RunOutcome operator()(RunConfig config, const std::string&) {
    ++runs;
    std::this_thread::sleep_for(each);
    bool killed = false;
    for (const auto& step : config.steps) {
      killed |= step["f"] == "kill" && step["at_ms"] == 2000;
    }
    RunOutcome o;
    o.result = CheckResult{};
    if (!never && killed && config.time_limit_s >= 4.0) {
      o.result->valid = Validity::kFalse;
      o.result->anomalies = {{{"type", "double-holder"}, {"class", "unsafe-grant"}}};
      o.exit_code = 1;
    }
    return o;
  }
};

struct Shrunk {
  int code = -1;
  std::string out, err;
};

Shrunk Shrink(ShrinkOptions options, FakeTries& fake) {
  SignalWatcher signals;
  std::ostringstream out, err;
  Shrunk s;
  s.code = RunShrink(options, signals, out, err,
                     [&fake](RunConfig c, const std::string& l) { return fake(std::move(c), l); });
  s.out = out.str();
  s.err = err.str();
  return s;
}

TEST(ShrinkCommandTest, ShrinksToTheFaultThatMattersAndTheShortestLimit) {
  TempDir dir;
  testing::WriteShrinkRunDir(dir.path());
  FakeTries fake;
  const Shrunk s = Shrink({.run_dir = dir.path()}, fake);
  ASSERT_EQ(s.code, 0) << s.out << s.err;
  EXPECT_NE(s.out.find("kept:    kill n1 at 2.0 s (window 0)"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("removed: partition: c3 cut from n1 at 3.0 s (window 1)"),
            std::string::npos) << s.out;
  EXPECT_NE(s.out.find("removed: kill n1 at 9.0 s (window 3)"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("time limit: 10.0 s -> 4.0 s"), std::string::npos) << s.out;
  // One line per candidate, with what each try showed.
  EXPECT_NE(s.out.find("candidate 1 (all faults): 3 of 3 faults"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("try 1 invalid (unsafe-grant 1) -> reproduced"), std::string::npos);
  // A shorter limit must reproduce in every try: it stops at the first that does not.
  EXPECT_NE(s.out.find("(time limit): 1 of 3 faults [kill n1 at 2.0 s], 3.5 s: try 1 valid -> "
                       "not reproduced"),
            std::string::npos)
      << s.out;

  const std::string out = dir.path() + "/shrink";
  RunConfig minimal;
  ASSERT_TRUE(LoadRunConfigFile(out + "/minimal.json", minimal).ok());
  ASSERT_TRUE(ValidateRunConfig(minimal).ok());
  EXPECT_EQ(minimal.steps, nlohmann::json::parse(R"([
      {"at_ms": 2000, "f": "kill", "value": {"target": "n1"}},
      {"at_ms": 2100, "f": "restart"}])"));
  EXPECT_EQ(minimal.time_limit_s, 4.0);
  EXPECT_EQ(minimal.seed, 7u);
  EXPECT_EQ(minimal.predicted_verdict, "invalid");
  EXPECT_EQ(minimal.predicted_anomaly, "unsafe-grant");
  EXPECT_NE(minimal.description.find("unsafe-grant reproduced in 3 of 3 tries"),
            std::string::npos) << minimal.description;
  const nlohmann::json record = nlohmann::json::parse(FileText(out + "/shrink.json"));
  EXPECT_EQ(record["rate"], nlohmann::json({{"reproduced", 3}, {"tries", 3}}));
  EXPECT_EQ(record["stopped"], "");
  EXPECT_EQ(record["runs"], fake.runs);
  const std::string page = FileText(out + "/shrink.html");
  EXPECT_NE(page.find("kept: needed"), std::string::npos);
  EXPECT_NE(page.find("<a href=\"minimal.json\">"), std::string::npos);
}

TEST(ShrinkCommandTest, AReplayThatNeverReproducesWritesNoScenario) {
  TempDir dir;
  testing::WriteShrinkRunDir(dir.path());
  FakeTries fake{.never = true};
  const Shrunk s = Shrink({.run_dir = dir.path(), .tries = 2}, fake);
  EXPECT_EQ(s.code, 2) << s.out;
  EXPECT_EQ(fake.runs, 2);
  EXPECT_NE(s.out.find("the replay of all 3 faults did not show unsafe-grant in 2 tries"),
            std::string::npos) << s.out;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/shrink/minimal.json"));
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/shrink/shrink.html"));
}

TEST(ShrinkCommandTest, ABudgetTooSmallForOneTryRunsNothing) {
  TempDir dir;
  testing::WriteShrinkRunDir(dir.path());
  FakeTries fake;
  const Shrunk s = Shrink({.run_dir = dir.path(), .budget_s = 5}, fake);
  EXPECT_EQ(s.code, 2) << s.out;
  EXPECT_EQ(fake.runs, 0);
  EXPECT_NE(s.out.find("budget: 5 s would be exceeded by the next try"), std::string::npos)
      << s.out;
}

TEST(ShrinkCommandTest, TheBudgetStopsTheSearchWithTheBestFoundSoFarWritten) {
  TempDir dir;
  testing::WriteShrinkRunDir(dir.path());
  // Until a try has been timed, a 10 s try is taken to need 13 s: the first
  // fits in 13.9 s, the second, a second later, no longer does.
  FakeTries fake{.each = std::chrono::milliseconds(1000)};
  const Shrunk s = Shrink({.run_dir = dir.path(), .budget_s = 13.9}, fake);
  EXPECT_EQ(s.code, 0) << s.out;
  EXPECT_EQ(fake.runs, 1);
  EXPECT_NE(s.out.find("budget: 13.9 s would be exceeded by the next try: stopped after 1 runs"),
            std::string::npos)
      << s.out;
  const nlohmann::json record =
      nlohmann::json::parse(FileText(dir.path() + "/shrink/shrink.json"));
  EXPECT_EQ(record["stopped"], "budget");
  EXPECT_EQ(record["rate"], nlohmann::json({{"reproduced", 1}, {"tries", 1}}));
  // The best so far: every fault, at the run's own limit.
  RunConfig minimal;
  ASSERT_TRUE(LoadRunConfigFile(dir.path() + "/shrink/minimal.json", minimal).ok());
  EXPECT_EQ(minimal.steps.size(), 5u) << minimal.steps;
  EXPECT_EQ(minimal.time_limit_s, 10.0);
}

TEST(ShrinkCommandTest, RefusesWithOneLine) {
  TempDir dir;
  testing::WriteShrinkRunDir(dir.path(), true);
  FakeTries fake;
  Shrunk s = Shrink({.run_dir = dir.path()}, fake);
  EXPECT_EQ(s.code, kExitBadInput);
  EXPECT_EQ(s.err, "locksmith: cannot shrink: " + dir.path() +
                       " is valid: shrink takes an invalid run, and there is no anomaly to "
                       "reproduce\n");
  EXPECT_EQ(fake.runs, 0);
  testing::WriteShrinkRunDir(dir.path());
  std::filesystem::create_directories(dir.path() + "/shrink/old");
  s = Shrink({.run_dir = dir.path()}, fake);
  EXPECT_EQ(s.code, kExitBadInput);
  EXPECT_NE(s.err.find("already exists and is not empty"), std::string::npos) << s.err;
  s = Shrink({.run_dir = dir.path(), .out_dir = dir.path() + "/other", .tries = 0}, fake);
  EXPECT_EQ(s.code, kExitBadInput);
  EXPECT_EQ(fake.runs, 0);
}

}  // namespace
}  // namespace locksmith
