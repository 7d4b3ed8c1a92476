// ZooKeeper's safety claim over long runs: zk-fair and zk-naive, 60 s each,
// under partitions of the ensemble, kills of any peer and leader loss (the
// failover family kills the leader until the others elect a new one), all
// three families composed on their own staggered schedules. No lock is ever
// granted to two clients whose sessions were both alive (no unsafe grant; the
// only anomalies allowed are expired-lease uses), every family really
// struck, and locks were still granted after faults.
#include <gtest/gtest.h>

#include <iostream>
#include <set>

#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

using std::chrono::seconds;

class ZookeeperChaosTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ZookeeperChaosTest, PartitionsKillsAndLeaderLossGrantNoUnsafeLock) {
  FinishedRun f = RunAndLoad({"--backend", "zookeeper", "--client", GetParam(), "--seed", "11",
                              "--time-limit", "60", "--nemesis", "partition,kill,failover",
                              "--nemesis-interval", "10", "--partition-ms", "4000"},
                             seconds(240));
  // Valid, or invalid only by expired-lease uses (a holder cut off past its
  // session acts on): the classes of the double holders are a subset of
  // {expired-lease-use}, never an unsafe grant. The linearizability check
  // has no classes: its nonlinearizable verdict may only come with them.
  auto classes = AnomalyClasses(f.results);
  const int unclassified = Count(classes, "");
  classes.erase("");
  for (const auto& [anomaly_class, n] : classes) {
    EXPECT_EQ(anomaly_class, "expired-lease-use") << n << " " << f.results["anomalies"].dump();
  }
  if (unclassified > 0) {
    EXPECT_FALSE(classes.empty()) << "a nonlinearizable history without a double holder";
    for (const auto& a : f.results["anomalies"]) {
      if (!a.contains("class")) {
        EXPECT_EQ(a.value("type", ""), "nonlinearizable") << a.dump();
      }
    }
  }
  EXPECT_EQ(f.code, classes.empty() ? 0 : 1) << f.out;
  std::set<std::string> struck;
  int ok_after_first_fault = 0;
  int64_t first_fault = -1;
  for (const Op& op : f.history) {
    if (op.is_nemesis() && op.type == OpType::kInfo && op.fault.is_object()) {
      struck.insert(op.fault.value("family", ""));
      if (first_fault < 0) first_fault = op.time;
    }
    ok_after_first_fault += first_fault >= 0 && op.is_client() && op.f == "acquire" &&
                            op.type == OpType::kOk;
  }
  EXPECT_EQ(struck, (std::set<std::string>{"failover", "kill", "partition"}));
  EXPECT_GT(ok_after_first_fault, 50);
  std::cout << GetParam() << ": exit " << f.code << ", locks granted after the first fault "
            << ok_after_first_fault << ", expired-lease uses "
            << Count(classes, "expired-lease-use")
            << "\n";
}

INSTANTIATE_TEST_SUITE_P(Recipes, ZookeeperChaosTest, ::testing::Values("zk-fair", "zk-naive"),
                         [](const auto& info) {
                           return info.param == "zk-fair" ? std::string("ZkFair")
                                                          : std::string("ZkNaive");
                         });

}  // namespace
}  // namespace locksmith::testing
