// End to end: the locksmith binary against real Redis servers in network
// namespaces (loopback without root). Each test checks the verdict and that
// the run left nothing behind.
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "checker/history.h"
#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

using std::chrono::seconds;

// Ops completed, by type, from results.json.
int64_t Count(const nlohmann::json& results, const std::string& type) {
  return results["stats"]["perf"]["stats"]["by_type"].value(type, int64_t{0});
}

void ExpectNothingLeft(const std::string& run_dir) {
  const std::string tag = RunTag(run_dir);
  if (geteuid() == 0) {
    EXPECT_FALSE(tag.empty()) << "no cluster tag in the run's log";
  }
  auto left = Leftovers(tag, run_dir);
  EXPECT_TRUE(left.empty()) << "left behind: " << left.front();
}

TEST(RunIntegrationTest, PlainRunIsValidWithThousandsOfOps) {
  TempDir dir;
  std::string out;
  int code = RunLocksmith(dir.path(),
                          {"run", "--backend", "redis", "--workload", "mutex", "--concurrency", "10",
                           "--time-limit", "20", "--store", "store"},
                          seconds(120), &out);
  ASSERT_EQ(code, 0) << out;
  const std::string run = LatestRun(dir.path() + "/store");
  auto results = ReadJson(run + "/results.json");
  EXPECT_EQ(results["valid"], true);
  EXPECT_GT(Count(results, "ok") + Count(results, "fail"), 2000) << results["stats"].dump();
  EXPECT_GT(Count(results, "ok"), 500);
  for (const char* file : {"config.json", "history.jsonl", "report.html", "junit.xml", "locksmith.log",
                           "nodes/n1/redis.log"}) {
    EXPECT_TRUE(std::filesystem::exists(run + "/" + file)) << file;
  }
  EXPECT_TRUE(ReadJson(run + "/config.json")["seed"].is_number_unsigned());
  ExpectNothingLeft(run);
}

// The same seed and faults; only the persistence differs.
std::vector<std::string> KillArgs(const std::string& persistence) {
  return {"run", "--nemesis", "kill", "--nemesis-interval", "3", "--restart-delay", "100",
          "--hold", "200-400", "--lease", "2000", "--time-limit", "15", "--seed", "1",
          "--redis-persistence", persistence, "--store", "store"};
}

TEST(RunIntegrationTest, KillWithoutPersistenceFindsDoubleHolders) {
  TempDir dir;
  std::string out;
  int code = RunLocksmith(dir.path(), KillArgs("none"), seconds(120), &out);
  ASSERT_EQ(code, 1) << out;
  const std::string run = LatestRun(dir.path() + "/store");
  auto results = ReadJson(run + "/results.json");
  EXPECT_EQ(results["valid"], false);
  ASSERT_FALSE(results["anomalies"].empty());
  const auto& anomaly = results["anomalies"][0];
  EXPECT_EQ(anomaly["type"], "double-holder");
  EXPECT_EQ(anomaly["class"], "unsafe-grant");
  // The anomaly names both holders and the ops that prove it.
  EXPECT_NE(anomaly["holders"][0]["process"], anomaly["holders"][1]["process"]);
  EXPECT_GE(anomaly["ops"].size(), 2u);
  EXPECT_NE(out.find("unsafe-grant"), std::string::npos) << out;
  EXPECT_GE(results["nemesis"]["performed"].get<int>(), 6);
  EXPECT_EQ(results["nemesis"]["failed"], 0);
  ExpectNothingLeft(run);
}

// The default chaos scenario from its data file, shortened by flags (flags
// override the file): fsync always keeps every lock across SIGKILL.
TEST(RunIntegrationTest, KillWithFsyncAlwaysStaysValid) {
  TempDir dir;
  std::string out;
  int code = RunLocksmith(dir.path(),
                          {"run", "--config", LOCKSMITH_SOURCE_DIR "/scenarios/redis-kill-fsync-always.json",
                           "--time-limit", "15", "--nemesis-interval", "3", "--seed", "1",
                           "--store", "store"},
                          seconds(120), &out);
  ASSERT_EQ(code, 0) << out;
  const std::string run = LatestRun(dir.path() + "/store");
  auto results = ReadJson(run + "/results.json");
  EXPECT_EQ(results["valid"], true);
  EXPECT_GE(results["nemesis"]["performed"].get<int>(), 6);
  EXPECT_EQ(results["nemesis"]["failed"], 0);
  // The scenario predicts no double holders (row 6, fsync always), and the
  // run says whether it agreed.
  EXPECT_EQ(results["debate"]["predicted"], "N");
  EXPECT_EQ(results["debate"]["matches"], true);
  auto config = ReadJson(run + "/config.json");
  EXPECT_EQ(config["redis_persistence"], "always");  // from the file
  EXPECT_EQ(config["time_limit_s"], 15);             // from the flag
  ExpectNothingLeft(run);
}

TEST(RunIntegrationTest, SigintMidRunTearsDownAndKeepsACheckableHistory) {
  TempDir dir;
  const std::string store = dir.path() + "/store";
  // fsync always: the run must stay valid whenever the signal lands.
  LocksmithProcess run_process(dir.path(), {"run", "--time-limit", "120", "--nemesis", "kill",
                                            "--nemesis-interval", "1", "--redis-persistence",
                                            "always", "--store", "store"});
  ASSERT_TRUE(WaitForLines(store + "/latest/history.jsonl", 200, seconds(60)))
      << run_process.Stderr();
  run_process.Signal(SIGINT);
  auto code = run_process.Wait(seconds(30));
  ASSERT_TRUE(code.has_value()) << "no exit within 30 s of SIGINT";
  EXPECT_EQ(*code, 0) << run_process.Stdout() << run_process.Stderr();
  const std::string run = LatestRun(store);
  auto results = ReadJson(run + "/results.json");
  EXPECT_EQ(results["interrupted"], true);
  EXPECT_EQ(results["valid"], true);
  ExpectNothingLeft(run);
  // Every line written is a whole op, and the run can be judged again.
  auto history = ReadHistoryJsonl(run + "/history.jsonl", /*allow_truncated_tail=*/false);
  ASSERT_TRUE(history.ok()) << history.error();
  EXPECT_GT(history->size(), 200u);
  EXPECT_EQ(RunLocksmith(dir.path(), {"check", run}, seconds(60)), 0);
}

TEST(RunIntegrationTest, SigkillThenCleanupRemovesEverything) {
  TempDir dir;
  const std::string store = dir.path() + "/store";
  LocksmithProcess run_process(dir.path(), {"run", "--time-limit", "120", "--store", "store"});
  ASSERT_TRUE(WaitForLines(store + "/latest/history.jsonl", 200, seconds(60)))
      << run_process.Stderr();
  const std::string run = LatestRun(store);
  const std::string tag = RunTag(run);
  run_process.Signal(SIGKILL);
  ASSERT_TRUE(run_process.Wait(seconds(10)).has_value());
  if (geteuid() == 0) {
    // The killed run could not tear down: its namespace is still there.
    ASSERT_FALSE(tag.empty());
    EXPECT_FALSE(Leftovers(tag, run).empty()) << "nothing to clean up: the test proves nothing";
  }
  std::string out;
  EXPECT_EQ(RunLocksmith(dir.path(), {"cleanup"}, seconds(60), &out), 0) << out;
  auto left = Leftovers(tag, run);
  EXPECT_TRUE(left.empty()) << "left behind: " << left.front();
  // The history written before the kill is still checkable.
  EXPECT_EQ(RunLocksmith(dir.path(), {"check", run}, seconds(60), &out), 0) << out;
}

// Too short for any op: the run must end at once and say it proves nothing.
TEST(RunIntegrationTest, ARunWithNoSuccessfulOpIsUnknown) {
  TempDir dir;
  std::string out;
  int code = RunLocksmith(dir.path(),
                          {"run", "--time-limit", "0.001", "--concurrency", "50", "--store", "store"},
                          seconds(60), &out);
  ASSERT_EQ(code, 2) << out;
  const std::string run = LatestRun(dir.path() + "/store");
  auto results = ReadJson(run + "/results.json");
  EXPECT_EQ(results["valid"], "unknown");
  EXPECT_NE(results.value("reason", "").find("no client operation succeeded"), std::string::npos);
  ExpectNothingLeft(run);
}

TEST(RunIntegrationTest, BadInputIsOneLineAndExit254) {
  TempDir dir;
  for (std::vector<std::string> args : {std::vector<std::string>{"run", "--concurrency", "0"},
                                        {"run", "--no-such-flag"},
                                        {"run", "--hold", "9-1"},
                                        {"run", "--redis-persistence", "sometimes"},
                                        {"run", "--nemesis", "meteor"},
                                        {"check", dir.path() + "/missing"},
                                        {"check", "/etc/hostname", "--model", "no-such-model"}}) {
    std::string out;
    EXPECT_EQ(RunLocksmith(dir.path(), args, seconds(30), &out), 254) << args[1] << ": " << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  }
}

}  // namespace
}  // namespace locksmith::testing
