// The client-crash fault and the stuck-lock checker end to end (issue 12):
// the flash sale on a real Redis, one buyer crashing in the middle of an
// acquire (scenarios/redis-setnx-expire-client-crash.json). With the flash sale's
// SETNX-then-EXPIRE client the crash falls between the two commands: the
// key never expires and the checker reports a stuck lock naming the crashed
// process; the correct `redis` client, under the same seed and steps,
// crashes after its SET NX PX and its lock expires: valid. On ZooKeeper a
// crash is a process that vanished, not a session closed politely: its lock
// node lives until the session expires. Each run: 12 s of workload.
#include <gtest/gtest.h>

#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

using std::chrono::seconds;

FinishedRun CrashSale(const std::string& client, std::vector<std::string> more = {}) {
  const std::string scenario =
      LOCKSMITH_SOURCE_DIR "/scenarios/redis-setnx-expire-client-crash.json";
  std::vector<std::string> flags = {"--config", scenario, "--client", client, "--seed", "7"};
  flags.insert(flags.end(), more.begin(), more.end());
  return RunAndLoad(flags, seconds(150));
}

// The process the client-crash op says crashed, or -1.
int64_t CrashedProcess(const History& history) {
  for (const Op& op : history) {
    if (op.is_nemesis() && op.type == OpType::kInfo && op.f == "client-crash" &&
        op.error.empty()) {
      return op.value.value("process", int64_t{-1});
    }
  }
  return -1;
}

// Ops of `process` after its last acquire invoke: none (it vanished).
void ExpectVanishedMidAcquire(const History& history, int64_t process) {
  int64_t last = -1;
  for (size_t i = 0; i < history.size(); ++i) {
    if (history[i].process == process) last = static_cast<int64_t>(i);
  }
  ASSERT_GE(last, 0);
  EXPECT_EQ(history[static_cast<size_t>(last)].f, "acquire");
  EXPECT_EQ(history[static_cast<size_t>(last)].type, OpType::kInvoke);
}

TEST(ClientCrashIntegrationTest, SetnxExpireLeavesAStuckLockWhereTheCorrectClientDoesNot) {
  FinishedRun bad = CrashSale("redis-setnx-expire");
  ASSERT_EQ(bad.code, 1) << bad.out;
  const int64_t crashed = CrashedProcess(bad.history);
  ASSERT_GE(crashed, 0) << "no worker crashed";
  ExpectVanishedMidAcquire(bad.history, crashed);
  const auto classes = AnomalyClasses(bad.results);
  ASSERT_EQ(classes.count("crashed-acquirer"), 1u) << bad.results["anomalies"];
  for (const auto& a : bad.results["anomalies"]) {
    if (a["type"] != "stuck-lock") continue;
    EXPECT_EQ(a["key"], "item-0");
    EXPECT_GT(a["stuck_ms"].get<int64_t>(), 3 * 500);
    EXPECT_TRUE(a["last_grant"].is_object());
    ASSERT_EQ(a["crashed"].size(), 1u);
    EXPECT_EQ(a["crashed"][0]["process"], crashed);
  }
  EXPECT_EQ(bad.results["stats"]["inventory"]["valid"], true);  // the stock itself is exact

  FinishedRun good = CrashSale("redis");
  EXPECT_EQ(good.code, 0) << good.out << good.results["anomalies"];
  const int64_t crashed_good = CrashedProcess(good.history);
  ASSERT_GE(crashed_good, 0) << "no worker crashed";
  ExpectVanishedMidAcquire(good.history, crashed_good);
  EXPECT_EQ(good.results["stats"]["stuck-lock"]["valid"], true);
}

TEST(ClientCrashIntegrationTest, AZooKeeperHolderThatDiesKeepsItsLockUntilItsSessionExpires) {
  constexpr int64_t kSessionMs = 800;
  FinishedRun run = CrashSale("zk-fair", {"--backend", "zookeeper", "--session-timeout",
                                          std::to_string(kSessionMs)});
  ASSERT_EQ(run.code, 0) << run.out << run.results["anomalies"];
  const int64_t crashed = CrashedProcess(run.history);
  ASSERT_GE(crashed, 0) << "no worker crashed";
  ExpectVanishedMidAcquire(run.history, crashed);
  int64_t crash_ns = -1;
  int64_t next_grant_ns = -1;
  for (const Op& op : run.history) {
    if (op.is_nemesis() && op.f == "client-crash" && op.type == OpType::kInfo &&
        op.error.empty()) {
      crash_ns = op.time;
    } else if (crash_ns >= 0 && op.f == "acquire" && op.type == OpType::kOk &&
               op.key == "item-0") {
      next_grant_ns = op.time;
      break;
    }
  }
  ASSERT_GE(next_grant_ns, 0) << "item-0 was never granted again after the crash";
  // Closed politely, the dead holder's node would go at once and the next
  // waiter would hold within milliseconds.
  EXPECT_GT(next_grant_ns - crash_ns, kSessionMs / 2 * 1'000'000)
      << "the lock outlived its holder by only " << (next_grant_ns - crash_ns) / 1'000'000
      << " ms";
}

}  // namespace
}  // namespace locksmith::testing
