#include "harness/run_judge.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/limits.h"
#include "base/testing/temp_dir.h"
#include "checker/history_log.h"
#include "checker/testing/history_builder.h"
#include "harness/run_config.h"

namespace locksmith {
namespace {

using testing::HistoryBuilder;
using testing::TempDir;

// A mutex run's directory: its config and a history in which process 1 is
// granted k while process 0 still holds it.
void WriteRun(const std::string& dir, bool as_log = false) {
  RunConfig config;
  config.workload = "mutex";
  std::ofstream(dir + "/config.json") << config.ToJson().dump();
  HistoryBuilder b;
  auto acquire = [&](int64_t process, const std::string& key, const std::string& token) {
    b.Invoke(process, "acquire", {{"lease_ms", 1000}}, key)
        .Ok(process, {{"token", token}, {"validity_ms", 1000}});
  };
  auto release = [&](int64_t process, const std::string& key, const std::string& token) {
    b.Invoke(process, "release", {{"token", token}}, key).Ok(process);
  };
  for (int i = 0; i < 3; ++i) {
    acquire(2, "j", std::to_string(i));
    release(2, "j", std::to_string(i));
  }
  acquire(0, "k", "a");
  acquire(1, "k", "b");
  release(0, "k", "a");
  release(1, "k", "b");
  if (as_log) {
    std::string bytes(kHistoryLogMagic);
    HistoryLogEncoder encoder;
    for (const Op& op : b.Build()) encoder.Encode(op, &bytes);
    std::ofstream(dir + "/" + kRunHistoryLog) << bytes;
    return;
  }
  std::ofstream out(dir + "/history.jsonl");
  for (const Op& op : b.Build()) out << OpToJsonLine(op) << "\n";
}

// What must not depend on how the history was read: the verdict, the
// anomalies and every checker's stats but the search's timings.
nlohmann::json Judgement(nlohmann::json results) {
  for (auto& [name, checker] : results["stats"].items()) {
    for (const char* timing : {"time_s", "peak_memory_bytes"}) checker["stats"].erase(timing);
  }
  return {{"valid", results["valid"]}, {"anomalies", results["anomalies"]},
          {"stats", results["stats"]}, {"faults", results["fault_descriptions"]}};
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
