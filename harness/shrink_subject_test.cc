#include "harness/shrink_subject.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/testing/temp_dir.h"
#include "harness/testing/shrink_run_dir.h"
#include "nemesis/scenario_steps.h"

namespace locksmith {
namespace {

using testing::TempDir;

TEST(ShrinkSubjectTest, ReadsEachFaultThatTookPlaceAsStepsAtItsRecordedTime) {
  TempDir dir;
  testing::WriteShrinkRunDir(dir.path());
  auto subject = LoadShrinkSubject(dir.path(), "");
  ASSERT_TRUE(subject.ok()) << subject.error();
  EXPECT_EQ(subject->kind, "unsafe-grant");
  EXPECT_EQ(subject->kind_count, 1);
  EXPECT_EQ(subject->seed, 7u);
  // Window 2's kill failed: it did nothing to replay.
  ASSERT_EQ(subject->windows.size(), 3u);
  const RecordedWindow& kill = subject->windows[0];
  EXPECT_EQ(kill.window, 0);
  // The history's clock is 5 ms ahead of the steps'.
  EXPECT_EQ(kill.begin, nlohmann::json({{"at_ms", 2000}, {"f", "kill"},
                                        {"value", {{"target", "n1"}}}}));
  EXPECT_EQ(kill.end, nlohmann::json({{"at_ms", 2100}, {"f", "restart"}}));
  EXPECT_EQ(WindowText(kill), "kill n1 at 2.0 s");
  // The partition replays the grudge it put in place, not "one" drawn again.
  const RecordedWindow& partition = subject->windows[1];
  EXPECT_EQ(partition.begin["value"],
            nlohmann::json({{"shape", "grudge"}, {"grudge", {{"c3", {"n1"}}, {"n1", {"c3"}}}}}));
  EXPECT_EQ(partition.end, nlohmann::json({{"at_ms", 8000}, {"f", "heal"}}));
  EXPECT_EQ(subject->windows[2].window, 3);
  EXPECT_EQ(subject->windows[2].end["at_ms"], 10100) << "recorded past the limit";
}

TEST(ShrinkSubjectTest, StepsRunInTimeOrderAndLeaveEndsPastTheLimitToTheHeal) {
  TempDir dir;
  testing::WriteShrinkRunDir(dir.path());
  auto subject = LoadShrinkSubject(dir.path(), "");
  ASSERT_TRUE(subject.ok()) << subject.error();
  const nlohmann::json steps = ReplaySteps(*subject, {0, 1, 2}, 10000);
  std::vector<std::string> ops;
  for (const auto& s : steps) ops.push_back(s["f"].get<std::string>() + "@" + s["at_ms"].dump());
  EXPECT_EQ(ops, (std::vector<std::string>{"kill@2000", "restart@2100", "partition@3000",
                                           "heal@8000", "kill@9000"}));
  // A shorter limit drops what comes at or after it.
  EXPECT_EQ(ReplaySteps(*subject, {1, 2}, 5000).size(), 1u);
  EXPECT_EQ(LastStepMs(*subject, {0, 1}), 3000);
}

// A pause whose resume failed in the run ("n1 is not paused": a kill of
// the paused node came first, and its restart is not paused): replayed
// with that kill, the resume comes just before it (a resume after it would
// fail again and leave the candidate unknown; none would leave the window
// open into the next pause); without the kill it resumes as planned.
TEST(ShrinkSubjectTest, AnEndAnotherFaultUndidInTheRunComesBeforeThatFault) {
  ShrinkSubject subject;
  RecordedWindow pause;
  pause.family = "pause";
  pause.begin_ms = 3000;
  pause.begin = {{"at_ms", 3000}, {"f", "pause"}};
  pause.end_ms = 4600;
  pause.end = {{"at_ms", 4600}, {"f", "resume"}};
  pause.end_failed = true;
  RecordedWindow kill;
  kill.family = "kill";
  kill.begin_ms = 4300;
  kill.begin = {{"at_ms", 4300}, {"f", "kill"}};
  kill.end_ms = 4400;
  kill.end = {{"at_ms", 4400}, {"f", "restart"}};
  subject.windows = {pause, kill};
  auto ops = [&](const std::vector<size_t>& kept) {
    std::vector<std::string> out;
    for (const auto& s : ReplaySteps(subject, kept, 6000)) {
      out.push_back(s["f"].get<std::string>() + "@" + s["at_ms"].dump());
    }
    return out;
  };
  EXPECT_EQ(ops({0, 1}),
            (std::vector<std::string>{"pause@3000", "resume@4300", "kill@4300", "restart@4400"}));
  EXPECT_EQ(ops({0}), (std::vector<std::string>{"pause@3000", "resume@4600"}));
  subject.windows[0].end_failed = false;  // a resume that worked is replayed as it was
  EXPECT_EQ(ops({0, 1}),
            (std::vector<std::string>{"pause@3000", "kill@4300", "restart@4400", "resume@4600"}));
}

TEST(ShrinkSubjectTest, ACandidateIsTheRunsConfigWithStepsInPlaceOfItsSchedule) {
  TempDir dir;
  testing::WriteShrinkRunDir(dir.path());
  auto subject = LoadShrinkSubject(dir.path(), "");
  ASSERT_TRUE(subject.ok()) << subject.error();
  auto config = CandidateConfig(*subject, {0}, 4500, dir.path() + "/runs", "try");
  ASSERT_TRUE(config.ok()) << config.error();
  EXPECT_EQ(config->seed, 7u);
  EXPECT_EQ(config->time_limit_s, 4.5);
  EXPECT_EQ(config->nemesis, std::vector<std::string>{"kill"}) << "the partition is gone";
  EXPECT_EQ(config->store, dir.path() + "/runs");
  EXPECT_EQ(config->test_name, "try");
  EXPECT_EQ(config->steps.size(), 2u);
  const nlohmann::json j = config->ToJson();
  EXPECT_EQ(j["redis_persistence"], "none") << "the run's own options";
  EXPECT_FALSE(j.contains("partition_ms")) << "no option of a family that is not replayed";
  EXPECT_EQ(j["workload"], "mutex");
}

// Each refusal is one line naming the problem.
void ExpectRefused(const std::string& dir, const std::string& kind, const std::string& says) {
  auto subject = LoadShrinkSubject(dir, kind);
  ASSERT_FALSE(subject.ok());
  EXPECT_NE(subject.error().find(says), std::string::npos) << subject.error();
  EXPECT_EQ(subject.error().find('\n'), std::string::npos) << subject.error();
}

TEST(ShrinkSubjectTest, RefusesWhatCannotBeShrunk) {
  TempDir dir;
  ExpectRefused(dir.path() + "/nothing", "", "is not a run directory");
  ExpectRefused(dir.path(), "", "is not a run directory: it has no config.json");
  testing::WriteShrinkRunDir(dir.path(), true);
  ExpectRefused(dir.path(), "", "is valid: shrink takes an invalid run");
  testing::WriteShrinkRunDir(dir.path(), "unknown");
  ExpectRefused(dir.path(), "", "is not invalid (\"unknown\")");
  testing::WriteShrinkRunDir(dir.path());
  ExpectRefused(dir.path(), "stale-read", "has no \"stale-read\" anomaly (its kinds: "
                                          "unsafe-grant, nonlinearizable)");
  EXPECT_TRUE(LoadShrinkSubject(dir.path(), "nonlinearizable").ok());
}

TEST(ShrinkSubjectTest, RefusesARunWhoseFaultsWereNotRecorded) {
  TempDir dir;
  testing::WriteShrinkRunDir(dir.path());
  nlohmann::json results = nlohmann::json::parse(std::ifstream(dir.path() + "/results.json"));
  results.erase("faults");
  std::ofstream(dir.path() + "/results.json") << results.dump();
  ExpectRefused(dir.path(), "", "recorded no fault ledger");
  testing::WriteShrinkRunDir(dir.path());
  std::ofstream(dir.path() + "/history.jsonl", std::ios::trunc) << "";
  ExpectRefused(dir.path(), "", "recorded no fault that took place");
}

TEST(ShrinkSubjectTest, RefusesAConfigThatCannotBeReplayed) {
  TempDir dir;
  testing::WriteShrinkRunDir(dir.path());
  nlohmann::json config = nlohmann::json::parse(std::ifstream(dir.path() + "/config.json"));
  config["seed"] = nullptr;
  std::ofstream(dir.path() + "/config.json", std::ios::trunc) << config.dump();
  ExpectRefused(dir.path(), "", "config.json cannot be replayed: it records no seed");
  config["seed"] = 7;
  config["backend"] = "no-such-lock";
  std::ofstream(dir.path() + "/config.json", std::ios::trunc) << config.dump();
  ExpectRefused(dir.path(), "", "config.json cannot be replayed: ");
}

}  // namespace
}  // namespace locksmith
