// End to end: `locksmith check` on runs made by a real `locksmith run` against
// Redis servers: the run directory and its history file get the same verdict,
// and a run that is still going is not re-judged under its feet.
#include <signal.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "history/history.h"
#include "history/history_file.h"
#include "history/history_log.h"
#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

using std::chrono::seconds;

// Releases that failed (the master was down) followed, on the same key, by
// an ok acquire of another process: the case the lease rule is for.
int CountFailedReleasesThenRegranted(const History& history) {
  std::map<std::string, int64_t> failed_release_by;  // key -> process
  int count = 0;
  for (const Op& op : history) {
    if (!op.is_client()) continue;
    if (op.f == "release" && op.type == OpType::kFail) failed_release_by[op.key] = op.process;
    if (op.f == "acquire" && op.type == OpType::kOk) {
      auto it = failed_release_by.find(op.key);
      if (it != failed_release_by.end() && it->second != op.process) ++count;
      failed_release_by.erase(op.key);
    }
  }
  return count;
}

// Kills with fsync always keep every lock (the run is valid), and releases
// sent while the master is down fail: their locks expire with their leases.
TEST(CheckIntegrationTest, KilledRunGetsOneVerdictFromItsDirectoryAndItsHistoryFile) {
  TempDir dir;
  std::string out;
  const int run_code =
      RunLocksmith(dir.path(),
                   {"run", "--nemesis", "kill", "--nemesis-interval", "2", "--restart-delay", "500",
                    "--hold", "200-400", "--lease", "2000", "--time-limit", "12", "--seed", "1",
                    "--redis-persistence", "always", "--store", "store"},
                   seconds(120), &out);
  ASSERT_EQ(run_code, 0) << out;
  const std::string run = LatestRun(dir.path() + "/store");
  const std::string history_file = RunHistoryFile(run);
  auto history = LoadHistoryFile(history_file, "jsonl", nullptr);
  ASSERT_TRUE(history.ok()) << history.error();
  ASSERT_GE(CountFailedReleasesThenRegranted(*history), 1)
      << "no release failed during a kill: the test proves nothing";

  EXPECT_EQ(RunLocksmith(dir.path(), {"check", run}, seconds(60), &out), 0) << out;
  for (const char* model : {"owner-mutex", "mutex"}) {
    EXPECT_EQ(
        RunLocksmith(dir.path(), {"check", history_file, "--model", model}, seconds(60), &out), 0)
        << model << ": " << out;
    EXPECT_NE(out.find("failed release"), std::string::npos) << out;
    // Run-directory form of the file check: the same.
    EXPECT_EQ(RunLocksmith(dir.path(), {"check", run, "--model", model}, seconds(60), &out), 0)
        << model << ": " << out;
  }
  // Without the lease rule the same history is a false alarm: proof that the
  // agreement above is the rule's doing.
  EXPECT_EQ(RunLocksmith(dir.path(),
                         {"check", history_file, "--model", "owner-mutex", "--leases", "off"},
                         seconds(60), &out),
            1)
      << out;
  auto results = ReadJson(run + "/results.json");  // not const: a missing key reads as null
  auto& leases = results["stats"]["linearizable-owner-mutex"]["stats"]["leases"];
  EXPECT_EQ(leases["applied"], true) << results["stats"].dump();
  EXPECT_GE(leases.value("failed_releases", int64_t{0}), 1);
}

TEST(CheckIntegrationTest, ALiveRunIsNotRejudgedUntilItEnds) {
  TempDir dir;
  const std::string store = dir.path() + "/store";
  LocksmithProcess run_process(dir.path(), {"run", "--time-limit", "120", "--store", "store"});
  ASSERT_TRUE(WaitForOps(store + "/latest", 100, seconds(60)))
      << run_process.Stderr();
  const std::string run = LatestRun(store);

  std::string out;
  EXPECT_EQ(RunLocksmith(dir.path(), {"check", run}, seconds(60), &out), 254) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_NE(out.find("still running"), std::string::npos) << out;
  EXPECT_FALSE(std::filesystem::exists(run + "/results.json")) << "the live run was re-judged";
  // Reading its history is harmless and allowed.
  EXPECT_EQ(RunLocksmith(dir.path(), {"check", RunHistoryFile(run), "--model", "owner-mutex"},
                         seconds(60), &out),
            0)
      << out;

  run_process.Signal(SIGINT);
  auto code = run_process.Wait(seconds(30));
  ASSERT_TRUE(code.has_value()) << "no exit within 30 s of SIGINT";
  // Cut short with nothing found: unknown, and so it stays when judged again.
  EXPECT_EQ(*code, 2) << run_process.Stdout() << run_process.Stderr();
  EXPECT_EQ(RunLocksmith(dir.path(), {"check", run}, seconds(60), &out), 2) << out;
  EXPECT_EQ(ReadJson(run + "/results.json")["rechecked"], true);
}

// The first cut of `log` at or past `from` that falls between two records:
// a prefix the reader takes whole, with nothing skipped.
size_t RecordBoundaryFrom(const std::string& log, size_t from) {
  for (size_t cut = from; cut < log.size(); ++cut) {
    auto stream = HistoryLogStream::FromBytes(log.substr(0, cut), "log");
    if (stream && ReadAll(**stream) && (*stream)->skipped().empty()) return cut;
  }
  return log.size();
}

// A history that does not say it is whole is judged unknown, however
// cleanly it was cut: a run's history.bin cut at a record boundary (as a
// crash between two writes leaves it), or inside a record.
TEST(CheckIntegrationTest, ARunsHistoryCutShortIsUnknownWithOneLineSayingSo) {
  TempDir dir;
  std::string out;
  ASSERT_EQ(RunLocksmith(dir.path(), {"run", "--time-limit", "2", "--store", "store"},
                         seconds(60), &out),
            0)
      << out;
  const std::string run = LatestRun(dir.path() + "/store");
  const std::string log = ReadText(run + "/" + kRunHistoryLog);
  EXPECT_EQ(RunLocksmith(dir.path(), {"check", run}, seconds(60), &out), 0) << out;
  const size_t boundary = RecordBoundaryFrom(log, log.size() / 2);
  ASSERT_LT(boundary, log.size());
  for (const size_t cut : {boundary, boundary + 1}) {
    {
      std::ofstream file(run + "/" + kRunHistoryLog, std::ios::binary | std::ios::trunc);
      file << log.substr(0, cut);
    }
    EXPECT_EQ(RunLocksmith(dir.path(), {"check", run}, seconds(60), &out), 2) << cut << out;
    const std::string line = "verdict: UNKNOWN (history cut short: " + run + "/" +
                             kRunHistoryLog + " ends after record ";
    EXPECT_NE(out.find(line), std::string::npos) << out;
    EXPECT_NE(out.find(" without its closing record"), std::string::npos) << out;
    EXPECT_EQ(ReadJson(run + "/results.json")["history"]["whole"], false);
  }
}

}  // namespace
}  // namespace locksmith::testing
