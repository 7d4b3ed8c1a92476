// FailoverNemesis against a fake service whose "sentinels" promote n2 a few
// polls after the master is killed or paused: the ops name the old and new
// master, the heal restarts / resumes the old one, Teardown heals what is
// left, and a promotion that never comes is reported, still healed. A
// failover begun while no master is named waits for one. In
// isolate mode the old master's host is cut off on a FakeNet until the heal.
#include "nemesis/failover_nemesis.h"

#include <gtest/gtest.h>

#include <functional>
#include <mutex>
#include <vector>

#include "backends/testing/fake_lock_service.h"
#include "cluster/testing/fake_cluster.h"
#include "cluster/testing/fake_net.h"
#include "nemesis/partition_nemesis.h"

namespace locksmith {
namespace {

using std::chrono::milliseconds;

class FakeFailoverService : public HasPrimary, public Killable, public Pausable {
 public:
  explicit FakeFailoverService(int polls_to_promote) : polls_left_(polls_to_promote) {}
  Result<std::string> Primary() override {
    if (leaderless_polls > 0) {
      --leaderless_polls;
      return Error{"no member leads now"};
    }
    const bool faulted = faulted_ || (cut_off && cut_off());
    if (faulted && polls_left_ >= 0 && polls_left_-- == 0) leader_ = "n2";
    return leader_;
  }
  Status KillNode(const std::string& n) override { return Did("kill " + n); }
  Status StartNode(const std::string& n) override { return Did("start " + n); }
  Status PauseNode(const std::string& n) override { return Did("pause " + n); }
  Status ResumeNode(const std::string& n) override { return Did("resume " + n); }
  bool IsUp(const std::string&) override { return up; }

  std::vector<std::string> calls;
  std::function<bool()> cut_off;  // the master's host is cut off (isolate)
  bool up = false;                 // IsUp's answer for every node
  int leaderless_polls = 0;        // Primary() names no one this many times first

 private:
  Status Did(const std::string& what) {
    calls.push_back(what);
    faulted_ = what.rfind("kill", 0) == 0 || what.rfind("pause", 0) == 0;
    return OkStatus();
  }
  std::string leader_ = "n1";
  int polls_left_;
  bool faulted_ = false;
};

TEST(FailoverNemesisTest, KillsTheMasterUntilPromotionThenRestartsIt) {
  FakeFailoverService service(3);
  FailoverNemesis nemesis(service, &service, &service, nullptr, milliseconds(5000), milliseconds(1));
  FaultResult begun = nemesis.Invoke({"failover", {{"mode", "kill"}}});
  EXPECT_TRUE(begun.ok) << begun.error;
  EXPECT_EQ(begun.value["old"], "n1");
  EXPECT_EQ(begun.value["new"], "n2");
  EXPECT_TRUE(begun.value.contains("promoted_after_ms"));
  FaultResult healed = nemesis.Invoke({"failover-heal", nullptr});
  EXPECT_TRUE(healed.ok);
  EXPECT_EQ(healed.value["old"], "n1");
  EXPECT_EQ(healed.value["new"], "n2");
  EXPECT_EQ(service.calls, (std::vector<std::string>{"kill n1", "start n1"}));
  EXPECT_TRUE(nemesis.Teardown().empty());
}

// An election under way (etcd after its leader was killed, or deposed by a
// member back from a cut) names no master for a while: the failover waits
// for the one elected and takes it out, rather than failing unapplied.
TEST(FailoverNemesisTest, BegunWhileNoMasterIsNamedWaitsForOne) {
  FakeFailoverService service(2);
  service.leaderless_polls = 3;
  FailoverNemesis nemesis(service, &service, &service, nullptr, milliseconds(5000), milliseconds(1));
  FaultResult begun = nemesis.Invoke({"failover", {{"mode", "kill"}}});
  EXPECT_TRUE(begun.ok) << begun.error;
  EXPECT_EQ(begun.value["old"], "n1");
  EXPECT_EQ(begun.value["new"], "n2");
  EXPECT_TRUE(begun.value.contains("waited_for_master_ms")) << begun.value.dump();
  EXPECT_EQ(service.leaderless_polls, 0);
  EXPECT_TRUE(nemesis.Invoke({"failover-heal", nullptr}).ok);
  EXPECT_EQ(service.calls, (std::vector<std::string>{"kill n1", "start n1"}));
}

TEST(FailoverNemesisTest, NoMasterWithinThePromoteWaitFailsAndTouchesNothing) {
  FakeFailoverService service(2);
  service.leaderless_polls = 1'000'000;
  FailoverNemesis nemesis(service, &service, &service, nullptr, milliseconds(20), milliseconds(1));
  FaultResult begun = nemesis.Invoke({"failover", {{"mode", "kill"}}});
  EXPECT_FALSE(begun.ok);
  EXPECT_NE(begun.error.find("no master to fail over: no member leads now"), std::string::npos)
      << begun.error;
  EXPECT_TRUE(service.calls.empty());
  EXPECT_EQ(nemesis.Invoke({"failover-heal", nullptr}).error, "no failover in force");
  EXPECT_TRUE(nemesis.Teardown().empty());
}

TEST(FailoverNemesisTest, AMasterAnotherFamilyRestartedIsHealedWithoutAStart) {
  FakeFailoverService service(1);
  FailoverNemesis nemesis(service, &service, &service, nullptr, milliseconds(5000),
                          milliseconds(1));
  ASSERT_TRUE(nemesis.Invoke({"failover", {{"mode", "kill"}}}).ok);
  service.up = true;  // the kill family's restart came first
  FaultResult healed = nemesis.Invoke({"failover-heal", nullptr});
  EXPECT_TRUE(healed.ok) << healed.error;
  EXPECT_EQ(healed.value["already_up"], true);
  EXPECT_EQ(service.calls, (std::vector<std::string>{"kill n1"}));
  EXPECT_TRUE(nemesis.Teardown().empty());
}

TEST(FailoverNemesisTest, PauseWithoutPromotionIsReportedAndHealedByTeardown) {
  FakeFailoverService service(-1);  // never promotes
  FailoverNemesis nemesis(service, &service, &service, nullptr, milliseconds(20), milliseconds(1));
  FaultResult begun = nemesis.Invoke({"failover", {{"mode", "pause"}}});
  EXPECT_TRUE(begun.ok);
  EXPECT_TRUE(begun.value["new"].is_null());
  EXPECT_NE(begun.error.find("no new master"), std::string::npos);
  EXPECT_FALSE(nemesis.Invoke({"failover", {{"mode", "pause"}}}).ok);  // one at a time
  EXPECT_TRUE(nemesis.Teardown().empty());
  EXPECT_EQ(service.calls, (std::vector<std::string>{"pause n1", "resume n1"}));
  EXPECT_TRUE(nemesis.Teardown().empty());  // twice is fine
}

TEST(FailoverNemesisTest, IsolateCutsTheMastersHostOffUntilTheHeal) {
  testing::FakeNet net;
  testing::FakeCluster cluster({"n1", "n2", "n3"}, "tag001", &net);
  testing::ClusterTableService table(cluster);
  ClientFaults client_faults;
  const NemesisContext context{table, client_faults, 7, milliseconds(1000), &cluster, 4};
  auto isolator = NewPartitionNemesis(context, "fail");
  ASSERT_TRUE(isolator.ok()) << isolator.error();
  auto ns = [&](const char* host) { return cluster.Fake(host)->netns(); };
  FakeFailoverService service(2);
  service.cut_off = [&] { return !net.Reachable(ns("n1"), ns("n2")); };
  FailoverNemesis nemesis(service, nullptr, nullptr, std::move(*isolator), milliseconds(5000),
                          milliseconds(1));
  FaultResult begun = nemesis.Invoke({"failover", {{"mode", "isolate"}, {"clients", "0,1"}}});
  ASSERT_TRUE(begun.ok) << begun.error;
  EXPECT_EQ(begun.value["old"], "n1");
  EXPECT_EQ(begun.value["new"], "n2");
  EXPECT_EQ(begun.value["grudge"]["n2"], nlohmann::json({"c0", "c1", "n1"}));
  EXPECT_FALSE(net.Reachable(ns("n3"), ns("n1")));
  EXPECT_TRUE(net.Reachable(ns("n2"), ns("n3")));
  EXPECT_TRUE(net.ReachableFrom(cluster.ClientAddress(0), ns("n1")));
  EXPECT_FALSE(net.ReachableFrom(cluster.ClientAddress(2), ns("n1")));
  FaultResult healed = nemesis.Invoke({"failover-heal", nullptr});
  EXPECT_TRUE(healed.ok) << healed.error;
  EXPECT_TRUE(net.Reachable(ns("n1"), ns("n2")));
  EXPECT_TRUE(net.ReachableFrom(cluster.ClientAddress(2), ns("n1")));
  EXPECT_TRUE(service.calls.empty());  // nothing killed or paused
  EXPECT_TRUE(nemesis.Teardown().empty());
  // The chain is gone from every host.
  for (const auto& line : net.Describe()) EXPECT_EQ(line.find("chain "), std::string::npos) << line;
}

TEST(FailoverNemesisTest, IsolateWithoutNetworksFailsAndChangesNothing) {
  FakeFailoverService service(2);
  FailoverNemesis nemesis(service, &service, &service, nullptr, milliseconds(50),
                          milliseconds(1));
  FaultResult begun = nemesis.Invoke({"failover", {{"mode", "isolate"}}});
  EXPECT_FALSE(begun.ok);
  EXPECT_NE(begun.error.find("networks of their own"), std::string::npos) << begun.error;
  EXPECT_TRUE(nemesis.Teardown().empty());
  EXPECT_TRUE(service.calls.empty());
}

TEST(FailoverNemesisTest, WindowEndsWithTheHeal) {
  FailoverOptions o;
  o.mode = "pause";
  o.failover_ms = 3000;
  auto ops = FailoverWindow(o)(1000, 100000);
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0].op.f, "failover");
  EXPECT_EQ(ops[0].op.value["mode"], "pause");
  EXPECT_EQ(ops[1].op.f, "failover-heal");
  EXPECT_EQ(ops[1].at_ms, 4000);
  o.mode = "isolate";
  o.clients = "half";
  EXPECT_EQ(FailoverWindow(o)(0, 100000)[0].op.value,
            nlohmann::json({{"mode", "isolate"}, {"clients", "half"}}));
}

TEST(FailoverLookTest, OldAndNewMasterAndHowLongThePromotionTook) {
  EXPECT_EQ(DescribeFaultOp(kFailoverLook,
                            {"failover",
                             {{"mode", "kill"}, {"new", "n3"}, {"old", "n1"},
                              {"promoted_after_ms", 2408}}},
                            "")
                .text,
            "failover n1 \xE2\x86\x92 n3, promoted after 2.408 s (kill)");
}

}  // namespace
}  // namespace locksmith
