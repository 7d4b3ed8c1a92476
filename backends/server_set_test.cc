// ServerSet on FakeHosts: finding a node's server by name, the answer for
// an unknown name, the steps on a named node, and the order of StopAll.
#include "backends/server_set.h"

#include <gtest/gtest.h>
#include <signal.h>

#include "cluster/testing/fake_host.h"

namespace locksmith {
namespace {

using namespace std::chrono_literals;
using testing::FakeHost;

ServerProcessOptions On(FakeHost& host, const std::string& name) {
  return {ServiceNode{name, "zk-peer", host.Name(), "java", host.Address(), 2181}, &host,
          "the zookeeper peer", name + ".log", 30s};
}

ReadinessProbe Ready() {
  return {[] { return OkStatus(); }, 1ms, "serve"};
}

TEST(ServerSetTest, FindsServersByNameAndNamesEveryNodeForAnUnknownOne) {
  FakeHost a("a");
  FakeHost b("b");
  ServerSet set("zookeeper peer", "peers");
  ServerProcess& n1 = set.Add(On(a, "n1"));
  ServerProcess& n2 = set.Add(On(b, "n2"));
  EXPECT_EQ(set.size(), 2u);
  EXPECT_EQ(set.Find("n2"), &n2);
  EXPECT_EQ(*set.FindOrError("n1"), &n1);
  EXPECT_EQ(*set.IndexOf("n2"), 1u);
  EXPECT_EQ(set.HostOf("n2"), &b);
  EXPECT_EQ(set.Find("n7"), nullptr);
  EXPECT_EQ(set.HostOf("n7"), nullptr);
  EXPECT_EQ(set.FindOrError("n7").error(), "no zookeeper peer n7 (peers: n1, n2)");
  EXPECT_EQ(set.IndexOf("n7").error(), "no zookeeper peer n7 (peers: n1, n2)");
  EXPECT_EQ(set.Kill("n7").error(), "no zookeeper peer n7 (peers: n1, n2)");
  EXPECT_EQ(set.Pause("n7").error(), "no zookeeper peer n7 (peers: n1, n2)");
  EXPECT_EQ(set.Resume("n7").error(), "no zookeeper peer n7 (peers: n1, n2)");
  EXPECT_FALSE(set.IsUp("n7"));
}

TEST(ServerSetTest, StepsOnANamedNodeReachOnlyItsServer) {
  FakeHost a("a");
  FakeHost b("b");
  ServerSet set("redis node", "nodes");
  set.Add(On(a, "n1"));
  set.Add(On(b, "n2"));
  for (const auto& server : set.all()) {
    ASSERT_TRUE(server->Launch({{}, {}, {"java"}}, Ready()).ok());
  }

  ASSERT_TRUE(set.Pause("n2").ok());
  EXPECT_TRUE(a.signals().empty());
  ASSERT_EQ(b.signals().size(), 1u);
  EXPECT_EQ(b.signals()[0].signal, SIGSTOP);
  ASSERT_TRUE(set.Resume("n2").ok());
  ASSERT_TRUE(set.Kill("n1").ok());
  EXPECT_FALSE(set.IsUp("n1"));
  EXPECT_TRUE(set.IsUp("n2"));
  EXPECT_EQ(a.kills().size(), 1u);
  EXPECT_TRUE(b.kills().empty());
  EXPECT_EQ(set.Kill("n1").error(), "n1 is already down");
}

TEST(ServerSetTest, StopAllStopsTheLastStartedFirst) {
  FakeHost host("h");
  ServerSet set("redis-sentinel node", "nodes");
  for (const std::string name : {"n1", "n2", "s1"}) set.Add(On(host, name));
  for (const auto& server : set.all()) {
    ASSERT_TRUE(server->Launch({{}, {}, {"java"}}, Ready()).ok());
  }
  const auto spawns = host.spawns();
  ASSERT_EQ(spawns.size(), 3u);
  set.StopAll();
  EXPECT_EQ(host.kills(), (std::vector<int>{spawns[2].pid, spawns[1].pid, spawns[0].pid}));
  EXPECT_TRUE(host.live().empty());
}

}  // namespace
}  // namespace locksmith
