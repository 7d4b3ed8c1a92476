#include "nemesis/partition_nemesis.h"

#include <gtest/gtest.h>

#include "backends/testing/fake_lock_service.h"
#include "cluster/testing/fake_cluster.h"
#include "cluster/testing/fake_net.h"

namespace locksmith {
namespace {

using testing::FakeCluster;
using testing::FakeHost;
using testing::FakeNet;

// A cluster of `hosts` fake hosts on a FakeNet, its service, and the
// partition nemesis of a run with `clients` clients.
struct Rig {
  explicit Rig(int hosts, int clients = 4) : cluster(Names(hosts), "tag001", &net), service(cluster) {
    OptionsOf<PartitionOptions> options;
    const NemesisContext context{service, client_faults, 42, std::chrono::milliseconds(1000),
                                 &cluster, clients};
    auto made = MakePartitionNemesis(options, context);
    EXPECT_TRUE(made.ok()) << made.error();
    if (made) nemesis = std::move(*made);
  }
  static std::vector<std::string> Names(int n) {
    std::vector<std::string> names;
    for (int i = 1; i <= n; ++i) names.push_back("n" + std::to_string(i));
    return names;
  }
  std::string Ns(const std::string& host) { return cluster.Fake(host)->netns(); }
  bool Sees(const std::string& a, const std::string& b) { return net.Reachable(Ns(a), Ns(b)); }
  bool ClientSees(int client, const std::string& host) {
    return net.ReachableFrom(cluster.ClientAddress(client), Ns(host));
  }
  // Every rule and chain of the run's hosts ("chain NS C", "rule NS ..."), none of the
  // namespaces themselves.
  std::vector<std::string> Firewall() {
    std::vector<std::string> out;
    for (const auto& line : net.Describe()) {
      if (line.rfind("rule ", 0) == 0 || line.rfind("chain ", 0) == 0) out.push_back(line);
    }
    return out;
  }
  FaultResult Do(const std::string& f, nlohmann::json value = nullptr) {
    return nemesis->Invoke({f, std::move(value)});
  }

  FakeNet net;
  FakeCluster cluster;
  testing::ClusterTableService service;
  ClientFaults client_faults;
  std::unique_ptr<Nemesis> nemesis;
};

TEST(PartitionNemesisTest, IsolatingAHostCutsItBothWaysAndTheHealAndTeardownUndoIt) {
  Rig rig(3);
  ASSERT_TRUE(rig.Sees("n1", "n2"));
  FaultResult r = rig.Do("partition", {{"shape", "isolate"}, {"target", "n2"}});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(rig.Sees("n2", "n1"));
  EXPECT_FALSE(rig.Sees("n2", "n3"));
  EXPECT_TRUE(rig.Sees("n1", "n3"));
  EXPECT_EQ(r.value["grudge"]["n2"], nlohmann::json({"n1", "n3"}));
  EXPECT_EQ(r.value["rules"]["n2"]["drops_from"],
            nlohmann::json({"198.18.0.2", "198.18.0.4"}));
  // The clients still reach every host: only hosts were cut apart.
  EXPECT_TRUE(rig.ClientSees(0, "n2"));

  ASSERT_TRUE(rig.Do("heal").ok);
  EXPECT_TRUE(rig.Sees("n2", "n1"));
  EXPECT_TRUE(rig.Sees("n2", "n3"));
  EXPECT_FALSE(rig.Firewall().empty());  // the chains stay, empty, until teardown
  EXPECT_TRUE(rig.nemesis->Teardown().empty());
  EXPECT_EQ(rig.Firewall(), std::vector<std::string>{});
}

TEST(PartitionNemesisTest, ANewPartitionReplacesTheOneInPlace) {
  Rig rig(3);
  ASSERT_TRUE(rig.Do("partition", {{"shape", "isolate"}, {"target", "n1"}}).ok);
  ASSERT_TRUE(rig.Do("partition", {{"shape", "isolate"}, {"target", "n3"}}).ok);
  EXPECT_TRUE(rig.Sees("n1", "n2"));
  EXPECT_FALSE(rig.Sees("n3", "n2"));
  EXPECT_FALSE(rig.Sees("n3", "n1"));
  EXPECT_TRUE(rig.nemesis->Teardown().empty());
  EXPECT_TRUE(rig.Sees("n3", "n1"));
  EXPECT_EQ(rig.Firewall(), std::vector<std::string>{});
}

TEST(PartitionNemesisTest, MajoritiesRingOnFiveHostsLeavesEachItsTwoNeighbours) {
  Rig rig(5);
  FaultResult r = rig.Do("partition", {{"shape", "majorities-ring"}});
  ASSERT_TRUE(r.ok) << r.error;
  for (int a = 1; a <= 5; ++a) {
    int seen = 0;
    for (int b = 1; b <= 5; ++b) {
      if (a == b) continue;
      const std::string na = "n" + std::to_string(a), nb = "n" + std::to_string(b);
      seen += rig.Sees(na, nb) ? 1 : 0;
      EXPECT_EQ(rig.Sees(na, nb), rig.Sees(nb, na)) << na << " " << nb;  // symmetric at 5
    }
    EXPECT_EQ(seen, 2) << "n" << a;
  }
  EXPECT_TRUE(rig.nemesis->Teardown().empty());
}

TEST(PartitionNemesisTest, HalvesAndBridgeAndOneWayCutWhatTheirGrudgeSays) {
  for (const char* shape : {"halves", "bridge", "one-way"}) {
    Rig rig(5);
    FaultResult r = rig.Do("partition", {{"shape", shape}});
    ASSERT_TRUE(r.ok) << shape << ": " << r.error;
    const Grudge grudge = r.value["grudge"].get<Grudge>();
    for (int a = 1; a <= 5; ++a) {
      for (int b = 1; b <= 5; ++b) {
        if (a == b) continue;
        const std::string na = "n" + std::to_string(a), nb = "n" + std::to_string(b);
        // A connection needs both directions.
        EXPECT_EQ(rig.Sees(na, nb), Reaches(grudge, na, nb) && Reaches(grudge, nb, na))
            << shape << " " << na << " " << nb;
      }
    }
    EXPECT_TRUE(rig.nemesis->Teardown().empty());
    EXPECT_EQ(rig.Firewall(), std::vector<std::string>{}) << shape;
  }
}

TEST(PartitionNemesisTest, OneClientIsCutOffWhileTheOthersAndTheNodesStillSeeEachOther) {
  Rig rig(3, 5);
  // Process 13 of a 5-client run is worker 3's (13 mod 5).
  FaultResult r = rig.Do("partition", {{"shape", "clients-from-nodes"}, {"clients", {13}}});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.value["grudge"]["c3"], nlohmann::json({"n1", "n2", "n3"}));
  for (const char* host : {"n1", "n2", "n3"}) {
    EXPECT_FALSE(rig.ClientSees(3, host)) << host;
    EXPECT_TRUE(rig.ClientSees(0, host)) << host;
    EXPECT_TRUE(rig.ClientSees(4, host)) << host;
  }
  EXPECT_TRUE(rig.Sees("n1", "n2"));
  ASSERT_TRUE(rig.Do("heal").ok);
  EXPECT_TRUE(rig.ClientSees(3, "n1"));
  EXPECT_TRUE(rig.nemesis->Teardown().empty());
}

TEST(PartitionNemesisTest, ThePrimaryIsolatedWithSomeClientsSplitsTheClientsToo) {
  Rig rig(3, 4);
  FaultResult r = rig.Do("partition", {{"shape", "primary"}, {"clients", "0,2"}});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(rig.Sees("n1", "n2"));
  EXPECT_FALSE(rig.Sees("n3", "n1"));
  EXPECT_TRUE(rig.Sees("n2", "n3"));
  // Clients 0 and 2 stay with the old primary; 1 and 3 with the others.
  for (int c : {0, 2}) {
    EXPECT_TRUE(rig.ClientSees(c, "n1")) << c;
    EXPECT_FALSE(rig.ClientSees(c, "n2")) << c;
    EXPECT_FALSE(rig.ClientSees(c, "n3")) << c;
  }
  for (int c : {1, 3}) {
    EXPECT_FALSE(rig.ClientSees(c, "n1")) << c;
    EXPECT_TRUE(rig.ClientSees(c, "n2")) << c;
    EXPECT_TRUE(rig.ClientSees(c, "n3")) << c;
  }
  ASSERT_TRUE(rig.Do("heal").ok);
  for (int c = 0; c < 4; ++c) EXPECT_TRUE(rig.ClientSees(c, "n1")) << c;
  // "none" keeps every client on every host, as without the field.
  r = rig.Do("partition", {{"shape", "primary"}, {"clients", "none"}});
  ASSERT_TRUE(r.ok) << r.error;
  for (int c = 0; c < 4; ++c) EXPECT_TRUE(rig.ClientSees(c, "n2")) << c;
  EXPECT_TRUE(rig.nemesis->Teardown().empty());
}

TEST(PartitionNemesisTest, AutoCutsClientsOffTheOnlyHostOfASingleNodeService) {
  Rig rig(1, 4);
  FaultResult r = rig.Do("partition", {{"shape", "auto"}, {"clients", "one"}});
  ASSERT_TRUE(r.ok) << r.error;
  int cut = 0;
  for (int c = 0; c < 4; ++c) cut += rig.ClientSees(c, "n1") ? 0 : 1;
  EXPECT_EQ(cut, 1);
  EXPECT_TRUE(rig.nemesis->Teardown().empty());
}

// The seeded schedule's auto window carries --partition-clients for the
// one-host case; with several hosts it isolates one host, clients untouched.
TEST(PartitionNemesisTest, AutoIsolatesOneOfSeveralHostsAndEveryClientStillReachesEveryHost) {
  Rig rig(3, 4);
  OptionsOf<PartitionOptions> options;
  const nlohmann::json value = PartitionWindowOf(options)(0, 9000)[0].op.value;
  ASSERT_EQ(value, nlohmann::json({{"shape", "auto"}, {"target", "one"}, {"clients", "one"}}));
  FaultResult r = rig.Do("partition", value);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.value["grudge"].size(), 3u) << r.value.dump();
  int isolated = 0;
  for (const std::string host : {"n1", "n2", "n3"}) {
    isolated += r.value["grudge"][host].size() == 2;
    for (int c = 0; c < 4; ++c) EXPECT_TRUE(rig.ClientSees(c, host)) << c << " " << host;
  }
  EXPECT_EQ(isolated, 1) << r.value.dump();
  EXPECT_TRUE(rig.nemesis->Teardown().empty());
}

TEST(PartitionNemesisTest, BadOpsFailWithAReasonAndChangeNothing) {
  Rig rig(1, 4);
  FaultResult r = rig.Do("partition", {{"shape", "halves"}});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "a halves partition of 1 host(s) cuts nothing");
  r = rig.Do("partition", {{"shape", "clients-from-nodes"}, {"clients", "7"}});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "client 7 is not one of the run's 4 clients (0..3)");
  r = rig.Do("partition", {{"shape", "pentagram"}});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("unknown partition shape"), std::string::npos);
  r = rig.Do("partition", {{"shape", "isolate"}, {"target", "n7"}});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(rig.Firewall(), std::vector<std::string>{});
}

TEST(PartitionNemesisTest, AHostThatRefusesItsRulesFailsTheOpAndTheHealStillClearsTheOthers) {
  Rig rig(3);
  rig.net.FailCommand("iptables-restore", 1);
  FaultResult r = rig.Do("partition", {{"shape", "isolate"}, {"target", "n1"}});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("iptables-restore"), std::string::npos) << r.error;
  EXPECT_TRUE(rig.nemesis->Teardown().empty());
  EXPECT_EQ(rig.Firewall(), std::vector<std::string>{});
  EXPECT_TRUE(rig.Sees("n1", "n2"));
}

TEST(PartitionNemesisTest, ComponentsNameNodesAndEveryHostAtMostOnce) {
  Rig rig(3);
  FaultResult r = rig.Do("partition", {{"shape", "components"},
                                       {"components", {{"n1"}, {"n2", "n3"}}}});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(rig.Sees("n1", "n2"));
  EXPECT_TRUE(rig.Sees("n2", "n3"));
  r = rig.Do("partition", {{"shape", "components"}, {"components", {{"n1"}, {"n1", "n3"}}}});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "host n1 is in two components");
  EXPECT_TRUE(rig.nemesis->Teardown().empty());
}

// locksmith shrink replays a partition with the grudge the run recorded,
// whatever the seed would draw now: the same cut, and the same value back.
TEST(PartitionNemesisTest, ARecordedGrudgeIsPutInPlaceAsItWas) {
  Rig rig(3);
  const nlohmann::json recorded = {{"c2", {"n1"}}, {"n1", {"c2", "n3"}}, {"n3", {"n1"}}};
  FaultResult r = rig.Do("partition", {{"shape", "grudge"}, {"grudge", recorded}});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.value["grudge"], recorded);
  EXPECT_FALSE(rig.Sees("n1", "n3"));
  EXPECT_TRUE(rig.Sees("n1", "n2"));
  EXPECT_FALSE(rig.ClientSees(2, "n1"));
  EXPECT_TRUE(rig.ClientSees(1, "n1"));
  r = rig.Do("partition", {{"shape", "grudge"}, {"grudge", {{"n9", {"n1"}}}}});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("\"n9\", which is no host"), std::string::npos) << r.error;
  r = rig.Do("partition", {{"shape", "grudge"}, {"grudge", {{"n1", {"c4"}}}}});
  EXPECT_FALSE(r.ok) << "the rig has clients c0..c3";
  r = rig.Do("partition", {{"shape", "grudge"}});
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(rig.nemesis->Teardown().empty());
}

TEST(PartitionNemesisTest, LoopbackHostsCannotBePartitioned) {
  FakeCluster cluster({"n1"});
  testing::ClusterTableService service(cluster);
  ClientFaults client_faults;
  OptionsOf<PartitionOptions> options;
  const NemesisContext context{service, client_faults,
                               1, std::chrono::milliseconds(1000), &cluster, 2};
  auto made = MakePartitionNemesis(options, context);
  ASSERT_FALSE(made.ok());
  EXPECT_NE(made.error().find("run as root"), std::string::npos);
}

TEST(ResolveClientsTest, KeywordsListsAndProcessesPickWorkers) {
  EXPECT_EQ(*ResolveClients("all", 3, 1), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(*ResolveClients("2,0", 3, 1), (std::vector<int>{0, 2}));
  EXPECT_EQ(*ResolveClients(nlohmann::json({7, "c1"}), 3, 1), (std::vector<int>{1}));
  EXPECT_EQ(ResolveClients("one", 10, 5)->size(), 1u);
  EXPECT_EQ(ResolveClients("half", 10, 5)->size(), 5u);
  // A seed picks the same clients every time; over seeds, different ones.
  std::set<std::vector<int>> picks;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    EXPECT_EQ(*ResolveClients("half", 10, seed), *ResolveClients("half", 10, seed));
    picks.insert(*ResolveClients("half", 10, seed));
  }
  EXPECT_GT(picks.size(), 1u);
  EXPECT_FALSE(ResolveClients("3", 3, 1).ok());
  EXPECT_FALSE(ResolveClients("x", 3, 1).ok());
  EXPECT_FALSE(ResolveClients(nlohmann::json::array(), 3, 1).ok());
  EXPECT_FALSE(ResolveClients(nlohmann::json({-1}), 3, 1).ok());
}

TEST(ResolveClientsTest, ExceptPicksEveryOtherClient) {
  using nlohmann::json;
  EXPECT_EQ(*ResolveClients(json::object({{"except", 7}}), 5, 1), (std::vector<int>{0, 1, 3, 4}));
  EXPECT_EQ(*ResolveClients(json::object({{"except", json::array({0, "c1"})}}), 3, 1),
            (std::vector<int>{2}));
  EXPECT_FALSE(ResolveClients(json::object({{"except", "all"}}), 3, 1).ok());
  EXPECT_FALSE(ResolveClients(json::object({{"besides", 1}}), 3, 1).ok());
}

TEST(PartitionNemesisTest, ClientsFromNodesTakesAListOfNodes) {
  Rig rig(5, 3);
  FaultResult r = rig.Do("partition", {{"shape", "clients-from-nodes"},
                                       {"clients", nlohmann::json::object({{"except", 4}})},
                                       {"nodes", nlohmann::json::array({"n1", "n2"})}});
  ASSERT_TRUE(r.ok) << r.error;
  for (int c : {0, 2}) {
    EXPECT_FALSE(rig.ClientSees(c, "n1")) << c;
    EXPECT_FALSE(rig.ClientSees(c, "n2")) << c;
    EXPECT_TRUE(rig.ClientSees(c, "n3")) << c;
  }
  EXPECT_TRUE(rig.ClientSees(1, "n1"));  // process 4 is worker 1's
  EXPECT_FALSE(rig.Do("partition", {{"shape", "clients-from-nodes"}, {"nodes", {1}}}).ok);
  EXPECT_TRUE(rig.nemesis->Teardown().empty());
}

TEST(PlanCutsTest, NodesFilterWhatArrivesAndServeTheirClientsCuts) {
  FakeHost n1("n1", "198.18.0.2", true), n2("n2", "198.18.0.3", true);
  const std::vector<NetEndpoint> endpoints = {{"n1", "198.18.0.2", &n1},
                                              {"n2", "198.18.0.3", &n2},
                                              {"c0", "198.19.0.1", nullptr},
                                              {"c1", "", nullptr}};
  auto cuts = PlanCuts({{"n1", {"n2"}}, {"c0", {"n2"}}, {"n2", {"c0"}}}, endpoints);
  ASSERT_TRUE(cuts.ok()) << cuts.error();
  EXPECT_EQ((*cuts)["n1"], (HostCut{{"198.18.0.3"}, {}, {"198.18.0.3"}}));
  EXPECT_EQ((*cuts)["n2"], (HostCut{{"198.19.0.1"}, {"198.19.0.1"}, {"198.18.0.2", "198.19.0.1"}}));
  EXPECT_FALSE(PlanCuts({{"c0", {"c1"}}}, endpoints).ok());
  EXPECT_EQ(PlanCuts({{"c1", {"n1"}}}, endpoints).error(),
            "client c1 has no address of its own to cut off");
  EXPECT_FALSE(PlanCuts({{"n9", {"n1"}}}, endpoints).ok());
}

TEST(PlanCutsTest, RulesFlushTheChainAndJumpToItOnce) {
  const HostCut cut{{"198.18.0.3"}, {"198.19.0.1"}, {}};
  EXPECT_EQ(CutRules("LSM-t-part", cut, true),
            "*filter\n:LSM-t-part - [0:0]\n-I INPUT 1 -j LSM-t-part\n-I OUTPUT 1 -j LSM-t-part\n"
            "-A LSM-t-part -s 198.18.0.3 -j DROP\n-A LSM-t-part -d 198.19.0.1 -j DROP\nCOMMIT\n");
  EXPECT_EQ(CutRules("LSM-t-part", HostCut{}, false), "*filter\n:LSM-t-part - [0:0]\nCOMMIT\n");
}

TEST(PlanCutsTest, RulesSpareTheControlPortBeforeAnyDrop) {
  const HostCut cut{{"198.18.0.1"}, {}, {}};
  EXPECT_EQ(CutRules("LSM-t-part", cut, false, 22),
            "*filter\n:LSM-t-part - [0:0]\n-A LSM-t-part -p tcp --dport 22 -j RETURN\n"
            "-A LSM-t-part -p tcp --sport 22 -j RETURN\n-A LSM-t-part -s 198.18.0.1 -j DROP\n"
            "COMMIT\n");
  // Nothing to drop: nothing to spare either (a heal stays an empty chain).
  EXPECT_EQ(CutRules("LSM-t-part", HostCut{}, false, 22),
            "*filter\n:LSM-t-part - [0:0]\nCOMMIT\n");
}

TEST(PartitionOptionsTest, DefaultsValidateAndTheWindowCarriesTheShape) {
  OptionsOf<PartitionOptions> options;
  ASSERT_TRUE(options.set().Validate().ok());
  ASSERT_TRUE(options.set().Merge({{"partition_shape", "clients-from-nodes"},
                                   {"partition_clients", "0,2"}, {"partition_ms", 700}})
                  .ok());
  ASSERT_TRUE(options.set().Validate().ok());
  const auto ops = PartitionWindowOf(options)(1000, 5000);
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0].op.f, "partition");
  EXPECT_EQ(ops[0].op.value,
            nlohmann::json({{"shape", "clients-from-nodes"}, {"clients", "0,2"}}));
  EXPECT_EQ(ops[1].op.f, "heal");
  EXPECT_EQ(ops[1].at_ms, 1700);
  ASSERT_TRUE(options.set().Merge({{"partition_clients", "some"}}).ok());
  EXPECT_NE(options.set().Validate().error().find("--partition-clients"), std::string::npos);

  OptionsOf<PartitionOptions> primary;
  ASSERT_TRUE(primary.set().Merge({{"partition_shape", "primary"},
                                   {"partition_isolate_clients", "half"}}).ok());
  ASSERT_TRUE(primary.set().Validate().ok());
  EXPECT_EQ(PartitionWindowOf(primary)(0, 9000)[0].op.value,
            nlohmann::json({{"shape", "primary"}, {"clients", "half"}}));
  ASSERT_TRUE(primary.set().Merge({{"partition_isolate_clients", "most"}}).ok());
  EXPECT_NE(primary.set().Validate().error().find("--partition-isolate-clients"),
            std::string::npos);
}

TEST(PartitionLookTest, TheGrudgeInWordsOrTheShapeAskedFor) {
  EXPECT_EQ(DescribeFaultOp(kPartitionLook,
                            {"partition",
                             {{"grudge", {{"c5", {"n1"}}, {"n1", {"c5"}}}}, {"shape", "auto"}}},
                            "")
                .text,
            "partition: c5 cut from n1");
  EXPECT_EQ(DescribeFaultOp(kPartitionLook, {"partition", {{"shape", "halves"}}}, "").text,
            "partition (halves)");
}

}  // namespace
}  // namespace locksmith
