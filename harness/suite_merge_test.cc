// Sharding and merging on fakes (no root, no servers): three shards run
// separately, as three CI jobs would, then merged, give the runs and seeds
// of the unsharded suite and one index linking every run's report; the
// merge refuses shards that do not make one suite.
#include "harness/suite_merge.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

#include "base/exit_codes.h"
#include "base/testing/temp_dir.h"
#include "harness/signal_watcher.h"
#include "harness/suite_runner.h"
#include "harness/testing/fake_run_modules.h"

namespace locksmith {
namespace {

namespace fs = std::filesystem;
using testing::FakeRunModules;
using testing::TempDir;

// Two cells of three runs, one of them finding two holders at once.
Suite Pair(const std::string& store, uint64_t seed = 5, const std::string& digest = "d1") {
  auto suite = ParseSuite(nlohmann::json::parse(R"({"test_count": 3,
      "base": {"time_limit_s": 0.1, "concurrency": 2},
      "cells": [{"name": "fine"}, {"name": "broken"}]})"),
                          "pair", SuiteOverrides{std::nullopt, store, seed});
  EXPECT_TRUE(suite.ok()) << suite.error();
  suite->digest = digest;
  return *suite;
}

SuiteOutcome RunShard(const Suite& suite, std::optional<ShardSpec> shard) {
  SignalWatcher signals;
  std::ostringstream out;
  SuiteOutcome outcome = ExecuteSuite(suite, signals, FakeRunModules(), out, shard);
  EXPECT_TRUE(outcome.error.empty()) << outcome.error;
  return outcome;
}

// The three shards of Pair(seed), each in a store of its own (a machine).
std::vector<std::string> ThreeShards(const TempDir& root, uint64_t seed = 5) {
  std::vector<std::string> dirs;
  for (int i = 1; i <= 3; ++i) {
    const std::string store = root.path() + "/machine" + std::to_string(i) + "-" +
                              std::to_string(seed);
    dirs.push_back(RunShard(Pair(store, seed), ShardSpec{i, 3}).dir);
  }
  return dirs;
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

using RunId = std::tuple<std::string, int, uint64_t>;  // cell, repeat, seed

std::set<RunId> RunsOf(const SuiteRecord& record) {
  std::set<RunId> ids;
  for (const auto& r : record.runs) ids.insert({r.cell, r.repeat, r.seed});
  return ids;
}

TEST(SuiteMergeTest, ThreeShardsMergedAreTheUnshardedSuiteWithOneIndex) {
  TempDir root;
  const SuiteOutcome whole = RunShard(Pair(root.path() + "/whole"), std::nullopt);
  const std::vector<std::string> shards = ThreeShards(root);
  for (const auto& dir : shards) {
    ASSERT_TRUE(fs::exists(dir + "/shard.json")) << dir;
    const auto shard = nlohmann::json::parse(ReadText(dir + "/shard.json"));
    EXPECT_EQ(shard["seed"], 5);
    EXPECT_EQ(shard["suite_digest"], "d1");
    EXPECT_EQ(shard["runs"].size(), 2u);  // six equal runs over three shards
  }
  const std::string out = root.path() + "/merged";
  const MergeOutcome merged = MergeShards(out, shards);
  ASSERT_TRUE(merged.error.empty()) << merged.error;
  EXPECT_EQ(merged.exit_code, whole.exit_code);
  EXPECT_EQ(merged.exit_code, 1);  // the broken cell's invalid runs
  EXPECT_EQ(RunsOf(merged.record), RunsOf(whole.record));
  ASSERT_EQ(merged.record.runs.size(), 6u);
  // In suite order, as the unsharded suite lists them.
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(merged.record.runs[i].cell, whole.record.runs[i].cell);
    EXPECT_EQ(merged.record.runs[i].repeat, whole.record.runs[i].repeat);
  }

  // One summary, its rates over every run, and one index linking every report.
  const auto summary = nlohmann::json::parse(ReadText(out + "/summary.json"));
  EXPECT_EQ(summary["completed_runs"], 6);
  EXPECT_EQ(summary["planned_runs"], 6);
  EXPECT_EQ(summary["exit_code"], 1);
  EXPECT_EQ(summary["cells"]["broken"]["violations"], 3);
  EXPECT_EQ(summary["cells"]["broken"]["runs"], 3);
  EXPECT_EQ(summary["cells"]["fine"]["violations"], 0);
  EXPECT_FALSE(summary.contains("interrupted"));
  const std::string index = ReadText(out + "/index.html");
  for (const auto& run : merged.record.runs) {
    EXPECT_EQ(run.dir.rfind("shard-", 0), 0u) << run.dir;
    EXPECT_TRUE(fs::is_regular_file(out + "/" + run.dir + "/report.html")) << run.dir;
    EXPECT_NE(index.find("href=\"" + run.dir + "/report.html\""), std::string::npos) << run.dir;
  }
  EXPECT_NE(ReadText(out + "/junit.xml").find("tests=\"6\""), std::string::npos);
  const auto provenance = nlohmann::json::parse(ReadText(out + "/shards.json"));
  EXPECT_EQ(provenance["shards"].size(), 3u);

  std::ostringstream said, err;
  EXPECT_EQ(RunMerge(root.path() + "/again", shards, said, err), 1) << err.str();
  EXPECT_NE(said.str().find("merged 3 shards of suite pair (seed 5): 6 of 6 runs"),
            std::string::npos) << said.str();
  EXPECT_NE(said.str().find("broken: 3 of 3 invalid"), std::string::npos) << said.str();
}

// The merge's one line for `shards`, its code 254, and OUT not made.
std::string Refusal(const TempDir& root, const std::vector<std::string>& shards) {
  const std::string out = root.path() + "/refused";
  std::ostringstream said, err;
  EXPECT_EQ(RunMerge(out, shards, said, err), kExitBadInput);
  EXPECT_FALSE(fs::exists(out));
  const std::string line = err.str();
  EXPECT_EQ(std::count(line.begin(), line.end(), '\n'), 1) << line;
  return line;
}

TEST(SuiteMergeTest, ShardsThatAreNotOneSuiteAreRefused) {
  TempDir root;
  const std::vector<std::string> shards = ThreeShards(root);
  const std::vector<std::string> other_seed = ThreeShards(root, 6);
  const std::string other_file =
      RunShard(Pair(root.path() + "/edited", 5, "d2"), ShardSpec{3, 3}).dir;
  const std::string of_two = RunShard(Pair(root.path() + "/two", 5), ShardSpec{2, 2}).dir;

  EXPECT_NE(Refusal(root, {shards[0], shards[1], other_seed[2]}).find("different seeds"),
            std::string::npos);
  EXPECT_NE(Refusal(root, {shards[0], shards[1], other_file}).find("different suite files"),
            std::string::npos);
  EXPECT_NE(Refusal(root, {shards[0], shards[1], of_two}).find("different splits"),
            std::string::npos);
  const std::string missing = Refusal(root, {shards[0], shards[2]});
  EXPECT_NE(missing.find("missing shard 2 of 3"), std::string::npos) << missing;
  const std::string twice = Refusal(root, {shards[0], shards[1], shards[2], shards[1]});
  EXPECT_NE(twice.find("shard 2/3 given twice"), std::string::npos) << twice;
  const std::string none = Refusal(root, {shards[0], shards[1], root.path() + "/nowhere"});
  EXPECT_NE(none.find("nowhere: not a directory"), std::string::npos) << none;
  const std::string unsharded = RunShard(Pair(root.path() + "/whole"), std::nullopt).dir;
  EXPECT_NE(Refusal(root, {unsharded}).find("shard.json"), std::string::npos);
}

TEST(SuiteMergeTest, ARunPresentTwiceIsRefused) {
  TempDir root;
  const std::vector<std::string> shards = ThreeShards(root);
  // Shard 3's summary also claims shard 1's first run (a copy gone wrong).
  auto third = nlohmann::json::parse(ReadText(shards[2] + "/summary.json"));
  third["runs"].push_back(third["runs"][0]);
  std::ofstream(shards[2] + "/summary.json") << third.dump();
  const std::string line = Refusal(root, shards);
  EXPECT_NE(line.find("present twice in " + shards[2]), std::string::npos) << line;
  // A run planned in two shards' records.
  third["runs"].erase(third["runs"].size() - 1);
  std::ofstream(shards[2] + "/summary.json") << third.dump();
  auto plan = nlohmann::json::parse(ReadText(shards[2] + "/shard.json"));
  plan["runs"].push_back(nlohmann::json::parse(ReadText(shards[0] + "/shard.json"))["runs"][0]);
  std::ofstream(shards[2] + "/shard.json") << plan.dump();
  const std::string planned = Refusal(root, shards);
  EXPECT_NE(planned.find("present twice: planned in " + shards[0] + " and " + shards[2]),
            std::string::npos) << planned;
}

TEST(SuiteMergeTest, ALinkPlantedInARunsDirectoryIsRefused) {
  TempDir root;
  const std::vector<std::string> shards = ThreeShards(root);
  const auto summary = nlohmann::json::parse(ReadText(shards[1] + "/summary.json"));
  const std::string run = shards[1] + "/" + summary["runs"][0]["dir"].get<std::string>();
  fs::remove(run + "/report.html");
  fs::create_symlink("/etc/hostname", run + "/report.html");
  const std::string line = Refusal(root, shards);
  EXPECT_NE(line.find(run + "/report.html: not a regular file or directory"), std::string::npos)
      << line;
  // A run's directory that is itself a link.
  fs::remove_all(run);
  fs::create_directory_symlink(root.path(), run);
  const std::string dir = Refusal(root, shards);
  EXPECT_NE(dir.find(run + ": not a directory"), std::string::npos) << dir;
}

TEST(SuiteMergeTest, AnOutputThatHoldsSomethingIsRefusedAndAShardNeedsASeed) {
  TempDir root;
  const std::vector<std::string> shards = ThreeShards(root);
  fs::create_directories(root.path() + "/busy");
  std::ofstream(root.path() + "/busy/summary.json") << "{}";
  std::ostringstream said, err;
  EXPECT_EQ(RunMerge(root.path() + "/busy", shards, said, err), kExitBadInput);
  EXPECT_NE(err.str().find("is not an empty directory"), std::string::npos) << err.str();

  Suite unseeded = Pair(root.path() + "/unseeded");
  unseeded.seed.reset();
  SignalWatcher signals;
  std::ostringstream out;
  const SuiteOutcome refused =
      ExecuteSuite(unseeded, signals, FakeRunModules(), out, ShardSpec{1, 2});
  EXPECT_EQ(refused.exit_code, kExitBadInput);
  EXPECT_NE(refused.error.find("--shard needs the seed"), std::string::npos) << refused.error;
  EXPECT_FALSE(fs::exists(root.path() + "/unseeded/suites"));
}

}  // namespace
}  // namespace locksmith
