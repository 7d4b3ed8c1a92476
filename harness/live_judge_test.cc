#include "harness/live_judge.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>
#include <thread>

#include "base/limits.h"
#include "base/testing/temp_dir.h"
#include "harness/history_recorder.h"
#include "harness/run_config.h"
#include "harness/run_judge.h"
#include "harness/testing/judged_runs.h"
#include "history/history_log.h"

namespace locksmith {
namespace {

using testing::DoubleGrantHistory;
using testing::Judgement;
using testing::TempDir;

nlohmann::json MutexConfig() {
  RunConfig config;
  config.workload = "mutex";
  return config.ToJson();
}

// Records `history` into dir's history.bin in flushed slices, as a run's
// clients would, with `live` following it; the recorder is closed after.
void RecordFollowed(const std::string& dir, const History& history, LiveJudge& live) {
  std::ofstream(dir + "/config.json") << MutexConfig().dump();
  auto recorder = HistoryRecorder::Open(dir + "/" + kRunHistoryLog,
                                        std::chrono::steady_clock::now());
  ASSERT_TRUE(recorder) << recorder.error();
  live.Follow(dir + "/" + kRunHistoryLog, (*recorder)->extent());
  for (size_t i = 0; i < history.size(); ++i) {
    (*recorder)->Record(history[i]);
    if (i % 500 == 0) (*recorder)->Flush();
  }
}

TEST(LiveJudgeTest, AHistoryJudgedAsItIsRecordedHasTheVerdictOfAPassAfterwards) {
  TempDir dir;
  const History history = DoubleGrantHistory(3000);
  std::mutex mu;
  std::vector<std::string> notes;
  LiveJudge live(MutexConfig(), /*start_bytes=*/1024, ReportSampleReason(),
                 [&](const std::string& line) {
                   std::lock_guard lock(mu);
                   notes.push_back(line);
                 });
  RecordFollowed(dir.path(), history, live);
  nlohmann::json during, after;
  auto judged = JudgeAndReport(dir.path(), MutexConfig(), nlohmann::json::object(),
                               kDefaultMaxHistoryBytes, &during, kWholeReportHistoryBytes, &live);
  ASSERT_TRUE(judged) << judged.error();
  EXPECT_TRUE(live.began());
  EXPECT_EQ(judged->valid, Validity::kFalse);
  EXPECT_EQ(during["history"]["report_sample"]["of"], history.size());
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find("judging it as it is recorded"), std::string::npos) << notes[0];
  EXPECT_NE(notes[1].find("every event read (" + std::to_string(history.size()) + ")"),
            std::string::npos)
      << notes[1];
  // The same history judged in one pass once it is complete.
  ASSERT_TRUE(JudgeAndReport(dir.path(), MutexConfig(), nlohmann::json::object(),
                             kDefaultMaxHistoryBytes, &after, /*whole_history_bytes=*/0));
  EXPECT_EQ(Judgement(during), Judgement(after));
  EXPECT_EQ(during["history"], after["history"]);
}

TEST(LiveJudgeTest, ASmallHistoryIsLeftToBeJudgedWhole) {
  TempDir dir;
  LiveJudge live(MutexConfig(), /*start_bytes=*/1 << 20, ReportSampleReason());
  RecordFollowed(dir.path(), DoubleGrantHistory(10), live);
  EXPECT_FALSE(live.Take().has_value());
  EXPECT_FALSE(live.began());
  nlohmann::json results;
  auto judged = JudgeAndReport(dir.path(), MutexConfig(), nlohmann::json::object(),
                               kDefaultMaxHistoryBytes, &results, kWholeReportHistoryBytes, &live);
  ASSERT_TRUE(judged) << judged.error();
  EXPECT_EQ(judged->valid, Validity::kFalse);
  EXPECT_FALSE(results["history"].contains("report_sample"));
}

// The threads of this process at SCHED_IDLE, and those at nice 19.
struct JudgeThreads {
  int idle = 0;
  int nice19 = 0;
};
JudgeThreads CountJudgeThreads() {
  JudgeThreads count;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    const auto tid = static_cast<pid_t>(std::atoi(task.path().filename().c_str()));
    errno = 0;
    const int nice = ::getpriority(PRIO_PROCESS, static_cast<id_t>(tid));
    if (::sched_getscheduler(tid) == SCHED_IDLE) ++count.idle;
    if (errno == 0 && nice == 19) ++count.nice19;
  }
  return count;
}

// Waits (up to 30 s) until `ready` holds of the judge's threads.
template <typename Ready>
JudgeThreads WaitForJudgeThreads(Ready ready) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  JudgeThreads now = CountJudgeThreads();
  while (!ready(now) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    now = CountJudgeThreads();
  }
  return now;
}

// A live judge following a recording of a double grant, the recorder still
// open: the judge has read it all and waits for more.
struct FollowedRecording {
  TempDir dir;
  std::unique_ptr<LiveJudge> live;
  std::unique_ptr<HistoryRecorder> recorder;
};

std::unique_ptr<FollowedRecording> StartFollowed(double time_limit_s) {
  auto followed = std::make_unique<FollowedRecording>();
  nlohmann::json config = MutexConfig();
  config["time_limit_s"] = time_limit_s;
  const std::string path = followed->dir.path() + "/" + kRunHistoryLog;
  followed->live =
      std::make_unique<LiveJudge>(config, /*start_bytes=*/1024, ReportSampleReason());
  auto recorder = HistoryRecorder::Open(path, std::chrono::steady_clock::now());
  EXPECT_TRUE(recorder) << recorder.error();
  if (!recorder) return nullptr;
  followed->recorder = std::move(*recorder);
  followed->live->Follow(path, followed->recorder->extent());
  for (const Op& op : DoubleGrantHistory(3000)) followed->recorder->Record(op);
  followed->recorder->Flush();
  return followed;
}

// Closes the recording; the judge found the double grant.
void ExpectDoubleGrantJudged(FollowedRecording& followed) {
  followed.recorder.reset();
  auto judged = followed.live->Take();
  ASSERT_TRUE(judged.has_value());
  ASSERT_TRUE(*judged) << judged->error();
  EXPECT_EQ((*judged)->result.valid, Validity::kFalse);
}

// Lowering a thread's priority needs no privilege: this holds for every user.
TEST(LiveJudgeTest, TheJudgeRunsAtSchedIdleWhileTheClientsRun) {
  auto followed = StartFollowed(/*time_limit_s=*/3600);
  ASSERT_NE(followed, nullptr);
  const JudgeThreads judging =
      WaitForJudgeThreads([](const JudgeThreads& t) { return t.idle > 0; });
  EXPECT_GT(judging.idle, 0);
  ExpectDoubleGrantJudged(*followed);
}

// At nice 19 from kIdleShare of the time limit on (a time limit of 1 ms: at
// once), the process's priority once the workload is over. Leaving
// SCHED_IDLE needs CAP_SYS_NICE, and telling nice 19 apart needs a process
// below it.
class LiveJudgePriorityTest : public ::testing::TestWithParam<double> {};

TEST_P(LiveJudgePriorityTest, TheJudgeGetsThePriorityBackOnceTheWorkloadIsOver) {
  if (::geteuid() != 0 || ::getpriority(PRIO_PROCESS, 0) >= 19) {
    GTEST_SKIP() << "giving a thread its priority back needs root, and a process not at 19";
  }
  const bool hastened = GetParam() < 1;
  auto followed = StartFollowed(GetParam());
  ASSERT_NE(followed, nullptr);
  const JudgeThreads judging = WaitForJudgeThreads([&](const JudgeThreads& t) {
    return hastened ? t.nice19 > 0 && t.idle == 0 : t.idle > 0;
  });
  if (hastened) {
    EXPECT_GT(judging.nice19, 0);
    EXPECT_EQ(judging.idle, 0);
  } else {
    EXPECT_GT(judging.idle, 0);
    EXPECT_EQ(judging.nice19, 0);
  }
  followed->live->WorkloadOver();
  const JudgeThreads after = CountJudgeThreads();
  EXPECT_EQ(after.idle, 0);
  EXPECT_EQ(after.nice19, 0);
  ExpectDoubleGrantJudged(*followed);
}

INSTANTIATE_TEST_SUITE_P(TimeLimits, LiveJudgePriorityTest, ::testing::Values(3600.0, 0.001));

}  // namespace
}  // namespace locksmith
