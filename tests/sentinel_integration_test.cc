// The redis-sentinel backend end to end (real redis-server and
// redis-sentinel processes, the locksmith binary): without faults a run is
// valid; a failover under load is recorded with the old and new master, the
// sentinels' +switch-master is an info op of the `sentinel` process, clients
// acquire on the new master afterwards (time from the fault to that acquire
// is printed), client pauses longer than the lease make expired-lease
// double holders, and nothing of a run is left behind.
#include <gtest/gtest.h>

#include <iostream>
#include <map>

#include "checker/history_file.h"
#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

using std::chrono::seconds;

using Finished = FinishedRun;

Finished RunWith(const std::vector<std::string>& flags, const std::string& seed = "3") {
  std::vector<std::string> args = {"--backend", "redis-sentinel", "--seed", seed};
  args.insert(args.end(), flags.begin(), flags.end());
  return RunAndLoad(args, seconds(150));
}

std::map<std::string, int> Classes(const nlohmann::json& results) {
  return AnomalyClasses(results);
}

std::vector<Op> Done(const History& history, const std::string& f, bool nemesis) {
  std::vector<Op> done;
  for (const Op& op : history) {
    const bool mine = nemesis ? op.is_nemesis() : op.is_sentinel();
    if (mine && op.type == OpType::kInfo && op.f == f) done.push_back(op);
  }
  return done;
}

TEST(SentinelIntegrationTest, NoFaultsIsValid) {
  Finished f = RunWith({"--time-limit", "6"});
  EXPECT_EQ(f.code, 0) << f.out;
  int ok = 0;
  for (const Op& op : f.history) ok += op.f == "acquire" && op.type == OpType::kOk;
  EXPECT_GT(ok, 10);
}

TEST(SentinelIntegrationTest, NoFaultsWithWaitForTwoReplicasIsValid) {
  Finished f = RunWith({"--time-limit", "5", "--redis-wait", "2"});
  EXPECT_EQ(f.code, 0) << f.out;
  int ok = 0;
  for (const Op& op : f.history) ok += op.f == "acquire" && op.type == OpType::kOk;
  EXPECT_GT(ok, 10);
  // Both replicas are up: every granted SET was acknowledged by both.
  for (const Op& op : f.history) EXPECT_EQ(op.error.find("WAIT"), std::string::npos) << op.error;
}

TEST(SentinelIntegrationTest, AFailoverIsRecordedAndClientsFollowTheNewMaster) {
  Finished f = RunWith({"--time-limit", "14", "--nemesis", "failover", "--nemesis-interval", "6",
                        "--failover-ms", "3000"});
  EXPECT_TRUE(f.code == 0 || f.code == 1) << f.out;
  const auto failovers = Done(f.history, "failover", true);
  const auto heals = Done(f.history, "failover-heal", true);
  ASSERT_FALSE(failovers.empty()) << f.out;
  ASSERT_EQ(failovers.size(), heals.size());
  const Op& first = failovers[0];
  EXPECT_EQ(first.value["old"], "n1");
  ASSERT_TRUE(first.value["new"].is_string()) << first.value.dump();
  EXPECT_NE(first.value["new"], "n1");
  EXPECT_EQ(heals[0].value["new"], first.value["new"]);
  // The sentinels announced the switch from n1 to the new master.
  bool announced = false;
  for (const Op& op : Done(f.history, "+switch-master", false)) {
    announced |= op.value["from"] == "n1" && op.value["to"] == first.value["new"];
  }
  EXPECT_TRUE(announced);
  EXPECT_FALSE(Done(f.history, "+odown", false).empty());
  // Clients acquire again after the promotion.
  int64_t fault_at = -1, first_ok_after = -1;
  for (const Op& op : f.history) {
    if (op.is_nemesis() && op.type == OpType::kInvoke && op.f == "failover" && fault_at < 0) {
      fault_at = op.time;
    }
    if (fault_at >= 0 && op.time > first.time && op.is_client() && op.f == "acquire" &&
        op.type == OpType::kOk) {
      first_ok_after = op.time;
      break;
    }
  }
  ASSERT_GE(first_ok_after, 0) << "no acquire succeeded after the promotion";
  std::cout << "fault to first acquire on the new master: "
            << (first_ok_after - fault_at) / 1'000'000 << " ms (promotion after "
            << first.value.value("promoted_after_ms", int64_t{-1}) << " ms)\n";
}

TEST(SentinelIntegrationTest, AClientPauseLongerThanTheLeaseMakesExpiredLeaseDoubleHolders) {
  Finished f = RunWith({"--time-limit", "12", "--nemesis", "client-pause", "--nemesis-interval",
                        "4", "--client-pause-ms", "2500", "--lease", "1000"});
  ASSERT_EQ(f.code, 1) << f.out;
  const auto classes = Classes(f.results);
  EXPECT_GE(classes.count("expired-lease-use") ? classes.at("expired-lease-use") : 0, 1);
}

}  // namespace
}  // namespace locksmith::testing
