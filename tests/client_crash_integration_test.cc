// The client-crash fault and the stuck-lock checker end to end (issue 12):
// the flash sale on a real Redis, one buyer crashing in the middle of an
// acquire (scenarios/redis-setnx-expire-client-crash.json). With seed 002's
// SETNX-then-EXPIRE client the crash falls between the two commands: the
// key never expires and the checker reports a stuck lock naming the crashed
// process; the correct `redis` client, under the same seed and steps,
// crashes after its SET NX PX and its lock expires: valid. Each run: 12 s
// of workload.
#include <gtest/gtest.h>

#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

using std::chrono::seconds;

FinishedRun CrashSale(const std::string& client) {
  const std::string scenario =
      LOCKSMITH_SOURCE_DIR "/scenarios/redis-setnx-expire-client-crash.json";
  return RunAndLoad({"--config", scenario, "--client", client, "--seed", "7"}, seconds(150));
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

}  // namespace
}  // namespace locksmith::testing
