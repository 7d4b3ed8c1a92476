#include "harness/run_judge.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/limits.h"
#include "base/testing/temp_dir.h"
#include "harness/run_config.h"
#include "harness/testing/judged_runs.h"
#include "history/history_log.h"

namespace locksmith {
namespace {

using testing::Judgement;
using testing::TempDir;

// A mutex run's directory: its config and a history in which process 1 is
// granted k while process 0 still holds it.
void WriteRun(const std::string& dir, bool as_log = false) {
  RunConfig config;
  config.workload = "mutex";
  std::ofstream(dir + "/config.json") << config.ToJson().dump();
  const History history = testing::DoubleGrantHistory(3);
  if (as_log) {
    std::string bytes(kHistoryLogMagic);
    HistoryLogEncoder encoder;
    for (const Op& op : history) encoder.Encode(op, &bytes);
    encoder.EncodeClosing(HistoryClosing{.ended = kEndedTimeLimit}, &bytes);
    std::ofstream(dir + "/" + kRunHistoryLog) << bytes;
    return;
  }
  std::ofstream out(dir + "/history.jsonl");
  for (const Op& op : history) out << OpToJsonLine(op) << "\n";
}

TEST(JudgeAndReportTest, AStreamedHistoryIsJudgedAsAWholeOne) {
  TempDir whole_dir, streamed_dir;
  WriteRun(whole_dir.path());
  WriteRun(streamed_dir.path());
  RunConfig config;
  config.workload = "mutex";
  nlohmann::json whole, streamed;
  auto w = JudgeAndReport(whole_dir.path(), config.ToJson(), nlohmann::json::object(),
                          kDefaultMaxHistoryBytes, &whole);
  ASSERT_TRUE(w) << w.error();
  auto s = JudgeAndReport(streamed_dir.path(), config.ToJson(), nlohmann::json::object(),
                          kDefaultMaxHistoryBytes, &streamed, /*whole_history_bytes=*/0);
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(w->valid, Validity::kFalse);
  EXPECT_EQ(Judgement(streamed), Judgement(whole));
  EXPECT_FALSE(whole["history"].contains("report_sample"));
  // Small enough that the sample is every op.
  EXPECT_EQ(streamed["history"]["report_sample"]["ops"], 20);
  EXPECT_EQ(streamed["history"]["report_sample"]["of"], 20);
  EXPECT_TRUE(std::filesystem::exists(streamed_dir.path() + "/report.html"));
}

// A run's compact log is judged as its JSON lines are, whole or streamed.
TEST(JudgeAndReportTest, AHistoryLogIsJudgedAsItsJsonLines) {
  TempDir jsonl_dir, whole_dir, streamed_dir;
  WriteRun(jsonl_dir.path());
  WriteRun(whole_dir.path(), /*as_log=*/true);
  WriteRun(streamed_dir.path(), /*as_log=*/true);
  RunConfig config;
  config.workload = "mutex";
  nlohmann::json jsonl, whole, streamed;
  ASSERT_TRUE(JudgeAndReport(jsonl_dir.path(), config.ToJson(), nlohmann::json::object(),
                             kDefaultMaxHistoryBytes, &jsonl));
  ASSERT_TRUE(JudgeAndReport(whole_dir.path(), config.ToJson(), nlohmann::json::object(),
                             kDefaultMaxHistoryBytes, &whole));
  ASSERT_TRUE(JudgeAndReport(streamed_dir.path(), config.ToJson(), nlohmann::json::object(),
                             kDefaultMaxHistoryBytes, &streamed, /*whole_history_bytes=*/0));
  EXPECT_EQ(whole["valid"], false);
  EXPECT_EQ(Judgement(whole), Judgement(jsonl));
  EXPECT_EQ(Judgement(streamed), Judgement(jsonl));
  EXPECT_EQ(streamed["history"]["report_sample"]["of"], 20);
}

}  // namespace
}  // namespace locksmith
