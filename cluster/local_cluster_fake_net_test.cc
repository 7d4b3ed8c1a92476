// LocalCluster's network lifecycle on a FakeNet (no root): creation builds
// the namespaces, bridge and veths that let every node and the controller
// reach each other, teardown leaves nothing, a failure halfway removes what
// was made, and `locksmith cleanup` removes a dead run's network.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "base/testing/temp_dir.h"
#include "cluster/cleanup.h"
#include "cluster/local_cluster.h"
#include "cluster/net_plan.h"
#include "cluster/testing/fake_net.h"

namespace locksmith {
namespace {

using testing::FakeNet;
using testing::TempDir;

class LocalClusterFakeNetTest : public ::testing::Test {
 protected:
  LocalClusterOptions Options(const std::string& tag) {
    LocalClusterOptions o;
    o.tag = tag;
    o.node_names = {"n1", "n2", "n3"};
    o.nodes_dir = dir_.path() + "/nodes";
    o.state_dir = dir_.path() + "/state";
    o.net = &net_;
    return o;
  }
  std::vector<RunRecord> Records() { return RunRegistry(dir_.path() + "/state").List().records; }

  TempDir dir_;
  FakeNet net_;
};

TEST_F(LocalClusterFakeNetTest, SetupThenTeardownLeavesNothing) {
  auto created = CreateLocalCluster(Options("fake01"));
  ASSERT_TRUE(created.ok()) << created.error();
  auto* cluster = static_cast<LocalCluster*>(created->get());
  EXPECT_TRUE(cluster->HasOwnNetwork());
  EXPECT_EQ(net_.ListNetns(), (std::vector<std::string>{NetnsName("fake01", "n1"),
                                                        NetnsName("fake01", "n2"),
                                                        NetnsName("fake01", "n3")}));
  EXPECT_EQ(net_.Links(NetnsName("fake01", "n2")),
            (std::vector<std::string>{"lo", NodeVethName("fake01", 1)}));
  for (const char* a : {"n1", "n2", "n3"}) {
    EXPECT_TRUE(net_.Reachable(FakeNet::kRoot, NetnsName("fake01", a))) << a;
    for (const char* b : {"n1", "n2", "n3"}) {
      EXPECT_TRUE(net_.Reachable(NetnsName("fake01", a), NetnsName("fake01", b))) << a << b;
    }
  }
  EXPECT_EQ(net_.Addresses(), std::set<std::string>{cluster->ControllerAddress()});
  // Closed to other local users before any host exists.
  EXPECT_EQ(net_.ListInetTables(), std::vector<std::string>{GuardTableName("fake01")});
  EXPECT_NE(net_.commands().front().find("nft add table inet " + GuardTableName("fake01")),
            std::string::npos);
  ASSERT_EQ(Records().size(), 1u);

  ASSERT_TRUE(cluster->Teardown().ok());
  EXPECT_TRUE(net_.Empty()) << ::testing::PrintToString(net_.Describe());
  EXPECT_TRUE(Records().empty());
}

TEST_F(LocalClusterFakeNetTest, AClientHostIsOnTheBridgeAtItsClientAddressUntilTeardown) {
  auto created = CreateLocalCluster(Options("fake05"));
  ASSERT_TRUE(created.ok()) << created.error();
  auto* cluster = static_cast<LocalCluster*>(created->get());
  auto host = cluster->ClientHost(2);
  ASSERT_TRUE(host.ok()) << host.error();
  ASSERT_NE(*host, nullptr);
  EXPECT_EQ((*host)->Address(), cluster->ClientAddress(2));
  EXPECT_TRUE((*host)->HasOwnNetwork());
  EXPECT_EQ(*cluster->ClientHost(2), *host);  // made once
  EXPECT_EQ(cluster->Hosts().size(), 3u);    // not a node: no nemesis targets it
  const std::string ns = ClientNetnsName("fake05", 2);
  for (const char* node : {"n1", "n2", "n3"}) {
    EXPECT_TRUE(net_.Reachable(ns, NetnsName("fake05", node))) << node;
  }
  const RunRecord record = cluster->Record();
  EXPECT_NE(std::find(record.netns.begin(), record.netns.end(), ns), record.netns.end());
  EXPECT_NE(std::find(record.links.begin(), record.links.end(), ClientVethName("fake05", 2)),
            record.links.end());

  ASSERT_TRUE(cluster->Teardown().ok());
  EXPECT_TRUE(net_.Empty()) << ::testing::PrintToString(net_.Describe());
}

TEST_F(LocalClusterFakeNetTest, LoopbackHasNoClientHosts) {
  LocalClusterOptions options = Options("fake06");
  options.force_loopback = true;
  auto created = CreateLocalCluster(options);
  ASSERT_TRUE(created.ok()) << created.error();
  auto host = (*created)->ClientHost(0);
  ASSERT_TRUE(host.ok()) << host.error();
  EXPECT_EQ(*host, nullptr);
}

TEST_F(LocalClusterFakeNetTest, APartialSetupFailureRemovesWhatItMade) {
  // Fails at the guard, halfway (n2's veth pair), then at the last step
  // (n3's loopback).
  for (const std::string& failing : {std::string("nft add table"), "link add " + HostVethName("fake02", 1),
                                     "-n " + NetnsName("fake02", "n3") + " link set lo"}) {
    net_.FailCommand(failing);
    auto created = CreateLocalCluster(Options("fake02"));
    ASSERT_FALSE(created.ok()) << failing;
    EXPECT_NE(created.error().find(failing), std::string::npos) << created.error();
    EXPECT_TRUE(net_.Empty()) << failing << ": " << ::testing::PrintToString(net_.Describe());
    EXPECT_TRUE(Records().empty()) << failing;
  }
}

TEST_F(LocalClusterFakeNetTest, RefusesATagWhoseObjectsExistAndLeavesThemAlone) {
  ASSERT_TRUE(net_.Ip({"netns", "add", NetnsName("fake03", "n2")}).ok());
  auto created = CreateLocalCluster(Options("fake03"));
  ASSERT_FALSE(created.ok());
  EXPECT_NE(created.error().find("already exists"), std::string::npos) << created.error();
  EXPECT_EQ(net_.Describe(), std::vector<std::string>{"netns " + NetnsName("fake03", "n2")});
}

TEST_F(LocalClusterFakeNetTest, CleanupRemovesADeadRunsNetworkAndUnregisteredObjectsWhenAsked) {
  auto created = CreateLocalCluster(Options("fake04"));
  ASSERT_TRUE(created.ok()) << created.error();
  auto* cluster = static_cast<LocalCluster*>(created->get());
  ASSERT_TRUE(cluster->ClientHost(0).ok());
  // As if its controller had died: same pid, another start time.
  RunRecord dead = cluster->Record();
  dead.controller_start_time += 1;
  ASSERT_TRUE(RunRegistry(dir_.path() + "/state").Save(dead).ok());
  // And leftovers of runs no record knows: a namespace, a guard table.
  ASSERT_TRUE(net_.Ip({"netns", "add", NetnsName("orphn1", "n1")}).ok());
  ASSERT_TRUE(net_.Nft({"add table inet " + GuardTableName("orphn2")}).ok());

  std::ostringstream out;
  // The cgroups of the runs on this machine (an integration test's, beside
  // this one) are not this test's to find: a directory of its own, empty.
  CleanupOptions options{.state_dir = dir_.path() + "/state", .net = &net_,
                         .cgroup_parent = dir_.path() + "/cgroups"};
  CleanupReport report = CleanupLeftovers(out, options);
  EXPECT_TRUE(report.failed.empty()) << out.str();
  EXPECT_EQ(report.left.size(), 2u) << out.str();  // the unregistered namespace and table
  EXPECT_EQ(net_.Describe(),
            (std::vector<std::string>{"nft table inet " + GuardTableName("orphn2"),
                                      "netns " + NetnsName("orphn1", "n1")}));
  EXPECT_TRUE(Records().empty());

  options.remove_unregistered = true;
  EXPECT_TRUE(CleanupLeftovers(out, options).clean()) << out.str();
  EXPECT_TRUE(net_.Empty()) << ::testing::PrintToString(net_.Describe());
}

}  // namespace
}  // namespace locksmith
