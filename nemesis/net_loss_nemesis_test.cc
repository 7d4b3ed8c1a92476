#include "nemesis/net_loss_nemesis.h"

#include <gtest/gtest.h>

#include "backends/testing/fake_lock_service.h"
#include "cluster/testing/fake_cluster.h"
#include "cluster/net_plan.h"
#include "cluster/testing/fake_net.h"

namespace locksmith {
namespace {

using testing::FakeCluster;
using testing::FakeNet;

// A cluster of `hosts` fake hosts on a FakeNet and the net-loss nemesis of a
// run with 4 clients, whose heal reads `drops` as the packets dropped.
struct Rig {
  explicit Rig(int hosts) : cluster(Names(hosts), "tag001", &net), service(cluster) {
    OptionsOf<NetLossOptions> options;
    const NemesisContext context{service, client_faults, 42, std::chrono::milliseconds(1000),
                                 &cluster, 4};
    auto made = MakeNetLossNemesis(options, context);
    EXPECT_TRUE(made.ok()) << made.error();
    if (!made) return;
    // The real nemesis reads iptables' counters, which FakeNet does not
    // keep: the same nemesis over the same chain, with counters of the test's.
    auto chain = ChainName("tag001", "loss");
    std::vector<NetEndpoint> endpoints;
    for (Host* host : cluster.Hosts()) endpoints.push_back({host->Name(), host->Address(), host});
    for (int i = 0; i < 4; ++i) {
      endpoints.push_back({"c" + std::to_string(i), cluster.ClientAddress(i), nullptr});
    }
    nemesis = std::make_unique<NetLossNemesis>(
        [this] { return service.Table(); }, 4, 42,
        std::make_unique<PartitionApplier>(*chain, endpoints, CutStyle{true, false}),
        [this]() -> Result<uint64_t> { return drops; });
  }
  static std::vector<std::string> Names(int n) {
    std::vector<std::string> names;
    for (int i = 1; i <= n; ++i) names.push_back("n" + std::to_string(i));
    return names;
  }
  std::vector<std::string> Rules(const std::string& host) {
    return net.Rules(cluster.Fake(host)->netns(), "LSM-tag001-loss")
        .value_or(std::vector<std::string>{"(no chain)"});
  }
  FaultResult Do(const std::string& f, nlohmann::json value = nullptr) {
    return nemesis->Invoke({f, std::move(value)});
  }

  FakeNet net;
  FakeCluster cluster;
  testing::ClusterTableService service;
  ClientFaults client_faults;
  std::unique_ptr<NetLossNemesis> nemesis;
  uint64_t drops = 0;
};

TEST(NetLossRulesTest, AStatisticMatchDropsSomePacketsAndNoneForAProbabilityOfOne) {
  EXPECT_EQ(StatisticMatch(0.3), " -m statistic --mode random --probability 0.3");
  EXPECT_EQ(StatisticMatch(0.125), " -m statistic --mode random --probability 0.125");
  EXPECT_EQ(StatisticMatch(1.0), "");
  HostCut cut;
  cut.drop_from = {"198.19.0.3"};
  cut.drop_to = {"198.18.0.3"};
  EXPECT_EQ(CutRules("LSM-t-loss", cut, false, 0, 0.25),
            "*filter\n:LSM-t-loss - [0:0]\n"
            "-A LSM-t-loss -s 198.19.0.3 -m statistic --mode random --probability 0.25 -j DROP\n"
            "-A LSM-t-loss -d 198.18.0.3 -m statistic --mode random --probability 0.25 -j DROP\n"
            "COMMIT\n");
}

TEST(NetLossRulesTest, AtTheSenderAHostDropsOnTheWayOutAndAClientsPacketsOnTheWayIn) {
  int dummy = 0;
  Host* a = reinterpret_cast<Host*>(&dummy);  // only compared with null
  const std::vector<NetEndpoint> endpoints = {
      {"n1", "198.18.0.2", a}, {"n2", "198.18.0.3", a}, {"c0", "198.19.0.1", nullptr}};
  // n1 drops what n2 and c0 send; c0 drops what n1 sends.
  const Grudge grudge = {{"n1", {"n2", "c0"}}, {"c0", {"n1"}}};
  auto at_sender = PlanCuts(grudge, endpoints, true);
  ASSERT_TRUE(at_sender.ok()) << at_sender.error();
  EXPECT_EQ(at_sender->at("n2").drop_to, std::set<std::string>{"198.18.0.2"});
  EXPECT_TRUE(at_sender->at("n2").drop_from.empty());
  EXPECT_EQ(at_sender->at("n1").drop_from, std::set<std::string>{"198.19.0.1"});
  EXPECT_EQ(at_sender->at("n1").drop_to, std::set<std::string>{"198.19.0.1"});
  // A partition's placement: the receiver drops; a client is served by the node.
  auto at_receiver = PlanCuts(grudge, endpoints, false);
  ASSERT_TRUE(at_receiver.ok());
  EXPECT_EQ(at_receiver->at("n1").drop_from,
            (std::set<std::string>{"198.18.0.3", "198.19.0.1"}));
  EXPECT_EQ(at_receiver->at("n1").drop_to, std::set<std::string>{"198.19.0.1"});
  EXPECT_TRUE(at_receiver->at("n2").drop_from.empty() && at_receiver->at("n2").drop_to.empty());
}

TEST(NetLossRulesTest, TheDropCountSumsTheDropRulesCountersOnly) {
  const std::string listing =
      "-N LSM-t-loss\n"
      "-A LSM-t-loss -p tcp -m tcp --dport 22 -c 900 1000 -j RETURN\n"
      "-A LSM-t-loss -d 198.18.0.3/32 -m statistic --mode random --probability 0.29999999981 "
      "-c 17 2000 -j DROP\n"
      "-A LSM-t-loss -s 198.19.0.1/32 -m statistic --mode random --probability 0.29999999981 "
      "-c 4 300 -j DROP\n"
      "iptables: a warning on stderr -c 55\n";
  EXPECT_EQ(DroppedPacketsIn(listing), 21u);
  EXPECT_EQ(DroppedPacketsIn(""), 0u);
}

TEST(NetLossNemesisTest, ALossPutsStatisticDropsAtTheSendersAndTheHealCountsThem) {
  Rig rig(3);
  ASSERT_NE(rig.nemesis, nullptr);
  FaultResult r = rig.Do("net-loss", {{"shape", "isolate"}, {"target", "n2"},
                                      {"probability", 0.4}});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(r.observed.has_value()) << "nothing can be counted yet";
  EXPECT_EQ(r.value["probability"], 0.4);
  EXPECT_EQ(r.value["grudge"]["n2"], nlohmann::json({"n1", "n3"}));
  // n2 loses what it sends to n1 and n3, and they lose what they send it.
  const std::string lossy = " -m statistic --mode random --probability 0.4 -j DROP";
  EXPECT_EQ(rig.Rules("n2"),
            (std::vector<std::string>{"-d 198.18.0.2" + lossy, "-d 198.18.0.4" + lossy}));
  EXPECT_EQ(rig.Rules("n1"), std::vector<std::string>{"-d 198.18.0.3" + lossy});
  // A lossy link still carries packets: nothing is cut.
  EXPECT_TRUE(rig.net.Reachable(rig.cluster.Fake("n2")->netns(), rig.cluster.Fake("n1")->netns()));

  rig.drops = 12;
  FaultResult healed = rig.Do("net-loss-heal");
  ASSERT_TRUE(healed.ok) << healed.error;
  EXPECT_EQ(healed.value["dropped"], 12);
  EXPECT_EQ(healed.observed, std::optional<bool>(true));
  EXPECT_EQ(rig.Rules("n2"), std::vector<std::string>{});
  EXPECT_TRUE(rig.nemesis->Teardown().empty());
  EXPECT_EQ(rig.Rules("n2"), std::vector<std::string>{"(no chain)"});
  EXPECT_TRUE(rig.nemesis->Teardown().empty()) << "twice is safe";
}

TEST(NetLossNemesisTest, AHealThatCountedNoDropSaysTheLossWasNotObserved) {
  Rig rig(1);
  ASSERT_NE(rig.nemesis, nullptr);
  // One host: auto loses packets between one client and it.
  FaultResult r = rig.Do("net-loss", {{"shape", "auto"}, {"clients", "2"}});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.value["probability"], 0.3) << "the default";
  EXPECT_EQ(rig.Rules("n1"),
            (std::vector<std::string>{"-s 198.19.0.3 -m statistic --mode random --probability "
                                      "0.3 -j DROP",
                                      "-d 198.19.0.3 -m statistic --mode random --probability "
                                      "0.3 -j DROP"}));
  FaultResult healed = rig.Do("net-loss-heal");
  ASSERT_TRUE(healed.ok);
  EXPECT_EQ(healed.value["dropped"], 0);
  EXPECT_EQ(healed.observed, std::optional<bool>(false));
}

TEST(NetLossNemesisTest, ABadProbabilityOrShapeFailsTheOpAndPutsNoRule) {
  Rig rig(3);
  ASSERT_NE(rig.nemesis, nullptr);
  for (const nlohmann::json& p : {nlohmann::json(0), nlohmann::json(1.5), nlohmann::json("x")}) {
    FaultResult r = rig.Do("net-loss", {{"shape", "isolate"}, {"probability", p}});
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("\"probability\" must be a number above 0 and at most 1"),
              std::string::npos)
        << r.error;
  }
  FaultResult r = rig.Do("net-loss", {{"shape", "sideways"}});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("unknown partition shape"), std::string::npos) << r.error;
  EXPECT_EQ(rig.Rules("n1"), std::vector<std::string>{"(no chain)"});
}

TEST(NetLossOptionsTest, TheProbabilityIsAboveZeroAndAtMostOneAndTheWindowCarriesIt) {
  NetLossOptions options;
  OptionSet set;
  options.Declare(set);
  EXPECT_TRUE(set.Validate().ok());
  options.probability = 0;
  EXPECT_FALSE(set.Validate().ok());
  options.probability = 1.01;
  EXPECT_FALSE(set.Validate().ok());
  options.probability = 0.5;
  options.target = "n1,,";
  EXPECT_FALSE(set.Validate().ok());
  options.target = "one";
  options.clients = "seven";
  Status bad_clients = set.Validate();
  ASSERT_FALSE(bad_clients.ok());
  EXPECT_EQ(bad_clients.error().rfind("--loss-clients: ", 0), 0u) << bad_clients.error();
  options.clients = "one";
  options.ms = 2500;
  const std::vector<ScheduledFault> window = NetLossWindow(options)(1000, 10000);
  ASSERT_EQ(window.size(), 2u);
  EXPECT_EQ(window[0].op.f, "net-loss");
  EXPECT_EQ(window[0].op.value["probability"], 0.5);
  EXPECT_EQ(window[1].op.f, "net-loss-heal");
  EXPECT_EQ(window[1].at_ms - window[0].at_ms, 2500);
}

TEST(NetLossNemesisTest, LoopbackHostsAreUnfit) {
  FakeCluster cluster({"n1"}, "tag001");  // no FakeNet: hosts share the controller's network
  testing::ClusterTableService service(cluster);
  ClientFaults client_faults;
  OptionsOf<NetLossOptions> options;
  const NemesisContext context{service, client_faults,
                               1, std::chrono::milliseconds(1000), &cluster, 2};
  EXPECT_EQ(NetLossUnfit(options, context),
            "--nemesis net-loss needs hosts with networks of their own: run as root, without "
            "--loopback");
  EXPECT_FALSE(MakeNetLossNemesis(options, context).ok());
}

}  // namespace
}  // namespace locksmith
