// The Redisson-style clients end to end (real redis-server, and on
// redis-sentinel real replicas and sentinels; the locksmith binary):
// `redis-watchdog` and `redis-reentrant` without faults are valid on both
// backends, the watchdog's renewals and the re-entries are in the history as
// docs/history-format.md says, and the watchdog under client pauses is
// valid when the pauses are shorter than its lease and makes expired-lease
// double holders (with the holder told it lost the lock) when a pause is
// longer. Runs are short (<= 14 s of workload) with 1-2 s leases.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

using std::chrono::seconds;

FinishedRun RunWith(const std::string& backend, const std::vector<std::string>& flags) {
  std::vector<std::string> args = {"--backend", backend, "--seed", "5"};
  args.insert(args.end(), flags.begin(), flags.end());
  return RunAndLoad(args, seconds(150));
}

// Ok acquires whose invoke carried "reentry": true.
int OkReentries(const History& history) {
  std::map<int64_t, bool> reentry;  // process -> its open acquire is a re-entry
  int n = 0;
  for (const Op& op : history) {
    if (!op.is_client() || op.f != "acquire") continue;
    if (op.type == OpType::kInvoke) {
      reentry[op.process] = op.value.is_object() && op.value.value("reentry", false);
    } else if (op.type == OpType::kOk && reentry[op.process]) {
      ++n;
    }
  }
  return n;
}

class RedissonNoFaultsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RedissonNoFaultsTest, TheWatchdogRenewsLongHoldsAndTheRunIsValid) {
  // Holds up to 1.5 leases: every long hold lives on its renewals.
  FinishedRun f = RunWith(GetParam(), {"--client", "redis-watchdog", "--time-limit", "8",
                                       "--lease", "1000", "--hold", "300-1500", "--keys", "2"});
  EXPECT_EQ(f.code, 0) << f.out;
  EXPECT_GT(Count(f.history, "acquire", OpType::kOk), 10);
  EXPECT_GT(Count(f.history, "renew", OpType::kOk), 5);
  EXPECT_EQ(Count(f.history, "lock-lost", OpType::kOk), 0);
  EXPECT_EQ(Count(f.history, "renew", OpType::kFail), 0);
}

TEST_P(RedissonNoFaultsTest, TheReentrantClientReentersAndTheRunIsValid) {
  FinishedRun f = RunWith(GetParam(), {"--client", "redis-reentrant", "--time-limit", "6",
                                       "--reentry", "0.5", "--hold", "10-60"});
  EXPECT_EQ(f.code, 0) << f.out;
  EXPECT_GT(Count(f.history, "acquire", OpType::kOk), 20);
  EXPECT_GT(OkReentries(f.history), 5);
  EXPECT_EQ(f.results["stats"]["double-holder"]["stats"].value("double_holders", -1), 0)
      << f.results.dump();
}

INSTANTIATE_TEST_SUITE_P(Backends, RedissonNoFaultsTest,
                         ::testing::Values("redis", "redis-sentinel"),
                         [](const auto& info) {
                           return info.param == "redis" ? std::string("Redis")
                                                        : std::string("Sentinel");
                         });

std::vector<std::string> PauseFlags(const std::string& pause_ms, const std::string& lease_ms) {
  return {"--client", "redis-watchdog", "--time-limit", "14", "--nemesis", "client-pause",
          "--nemesis-interval", "4", "--client-pause-ms", pause_ms, "--lease", lease_ms,
          "--keys", "1"};
}

TEST(RedissonPauseTest, TheWatchdogWithPausesShorterThanItsLeaseFindsNothing) {
  // A pause of 800 ms with a 2 s lease renewed every 667 ms: the lease left
  // when the watchdog stops is at least 1.3 s. Holds of 300-900 ms outlive a
  // renewal period now and then. The pauses stall their holders (observed)
  // and none outlives its lease: no anomaly, and the run is valid.
  std::vector<std::string> flags = PauseFlags("800", "2000");
  flags.insert(flags.end(), {"--hold", "300-900"});
  FinishedRun f = RunWith("redis", flags);
  EXPECT_EQ(f.code, 0) << f.out;
  EXPECT_TRUE(f.results["anomalies"].empty()) << f.results["anomalies"];
  const nlohmann::json& pauses = f.results["faults"]["families"][0];
  EXPECT_GT(pauses["observed"].get<int>(), 0) << f.results["faults"];
  EXPECT_EQ(pauses["past_lease"], 0) << f.results["faults"];
  EXPECT_GT(Count(f.history, "pause", OpType::kOk), 0) << "no holder was paused";
  EXPECT_GT(Count(f.history, "renew", OpType::kOk), 0);
  EXPECT_EQ(Count(f.history, "lock-lost", OpType::kOk), 0);
}

TEST(RedissonPauseTest, TheWatchdogWithAPauseLongerThanItsLeaseMakesExpiredLeaseDoubleHolders) {
  FinishedRun f = RunWith("redis", PauseFlags("2500", "1000"));
  ASSERT_EQ(f.code, 1) << f.out;
  const auto classes = AnomalyClasses(f.results);
  EXPECT_GE(Count(classes, "expired-lease-use"), 1);
  EXPECT_EQ(classes.count("unsafe-grant"), 0u) << "Redis itself did nothing wrong";
  // A holder paused right after its acquire learns of the loss from its
  // first renewal after the pause; one paused just before its release finds
  // the key another's when it releases.
  EXPECT_GT(Count(f.history, "lock-lost", OpType::kOk) + Count(f.history, "release", OpType::kFail),
            0);
}

// Debate row 8 on single Redis (scenarios/redis-watchdog-holder-cut-off.json):
// holds three times the lease live on renewals (valid above, without a
// fault); cut the holder alone off the node and its renewals stop, the key
// expires, another client acquires while the holder still works.
TEST(RedissonPartitionTest, TheWatchdogHolderCutOffFromRedisMakesExpiredLeaseDoubleHolders) {
  FinishedRun f = RunAndLoad({"--scenario", "redis-watchdog-holder-cut-off", "--seed", "1"},
                             seconds(150));
  ASSERT_EQ(f.code, 1) << f.out;
  const auto classes = AnomalyClasses(f.results);
  EXPECT_GE(Count(classes, "expired-lease-use"), 1);
  EXPECT_EQ(classes.count("unsafe-grant"), 0u) << "Redis itself did nothing wrong";
  EXPECT_EQ(f.results["debate"]["matches"], true);
  // The holder's renewals failed or went unanswered while it was cut off.
  EXPECT_GT(Count(f.history, "renew", OpType::kInfo) + Count(f.history, "renew", OpType::kFail),
            0);
}

}  // namespace
}  // namespace locksmith::testing
