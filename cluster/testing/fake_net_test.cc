// FakeNet follows the kernel where the harness's tests can tell: veth pairs
// and namespaces go as a whole, names are unique, unknown commands are
// refused, and DROP rules decide reachability until they are removed.
#include "cluster/testing/fake_net.h"

#include <gtest/gtest.h>

#include <chrono>

#include "cluster/testing/fake_cluster.h"

namespace locksmith::testing {
namespace {

constexpr auto kTimeout = std::chrono::seconds(5);

Status Iptables(FakeHost& host, std::vector<std::string> args) {
  args.insert(args.begin(), "iptables");
  auto r = host.Exec(args, kTimeout);
  if (!r.ok()) return Error{r.error()};
  return r->exit_code == 0 ? OkStatus() : Status(Error{r->output});
}

TEST(FakeNetTest, ADropRuleBetweenTwoHostsPartitionsThemAndItsRemovalHeals) {
  FakeNet net;
  FakeCluster cluster({"n1", "n2", "n3"}, "part01", &net);
  FakeHost& n1 = *cluster.Fake("n1");
  FakeHost& n3 = *cluster.Fake("n3");
  const std::string ns1 = n1.netns(), ns2 = cluster.Fake("n2")->netns(), ns3 = n3.netns();
  EXPECT_TRUE(n1.HasOwnNetwork());
  EXPECT_TRUE(net.Reachable(ns1, ns3));
  EXPECT_TRUE(net.Reachable(FakeNet::kRoot, ns1));

  // n1 drops what n3 sends: no connection either way (the replies are lost).
  ASSERT_TRUE(Iptables(n1, {"-A", "INPUT", "-s", n3.Address(), "-j", "DROP"}).ok());
  EXPECT_FALSE(net.Reachable(ns3, ns1));
  EXPECT_FALSE(net.Reachable(ns1, ns3));
  EXPECT_TRUE(net.Reachable(ns1, ns2));
  EXPECT_TRUE(net.Reachable(ns2, ns3));
  EXPECT_TRUE(net.Reachable(FakeNet::kRoot, ns1));  // the controller is not partitioned
  EXPECT_EQ(*net.Rules(ns1, "INPUT"), std::vector<std::string>{"-s " + n3.Address() + " -j DROP"});

  ASSERT_TRUE(Iptables(n1, {"-D", "INPUT", "-s", n3.Address(), "-j", "DROP"}).ok());
  EXPECT_TRUE(net.Reachable(ns3, ns1));
  EXPECT_FALSE(Iptables(n1, {"-D", "INPUT", "-s", n3.Address(), "-j", "DROP"}).ok());  // gone
}

TEST(FakeNetTest, RulesInAChainOfTheRunsOwnHealWhenItIsFlushed) {
  FakeNet net;
  FakeCluster cluster({"n1", "n2"}, "part02", &net);
  FakeHost& n1 = *cluster.Fake("n1");
  const std::string ns1 = n1.netns(), ns2 = cluster.Fake("n2")->netns();
  ASSERT_TRUE(Iptables(n1, {"-w", "-N", "LSM-part02-part"}).ok());
  ASSERT_TRUE(Iptables(n1, {"-I", "OUTPUT", "-j", "LSM-part02-part"}).ok());
  // A subnet matches too; RETURN before it lets the controller through.
  ASSERT_TRUE(Iptables(n1, {"-A", "LSM-part02-part", "-d", "198.18.0.1", "-j", "RETURN"}).ok());
  ASSERT_TRUE(Iptables(n1, {"-A", "LSM-part02-part", "-d", "198.18.0.0/28", "-j", "DROP"}).ok());
  EXPECT_FALSE(net.Reachable(ns1, ns2));
  EXPECT_FALSE(net.Reachable(ns2, ns1));
  EXPECT_TRUE(net.Reachable(FakeNet::kRoot, ns1));
  EXPECT_FALSE(Iptables(n1, {"-X", "LSM-part02-part"}).ok());  // not empty, still referenced
  ASSERT_TRUE(Iptables(n1, {"-F", "LSM-part02-part"}).ok());
  EXPECT_TRUE(net.Reachable(ns1, ns2));
  EXPECT_FALSE(Iptables(n1, {"-X", "LSM-part02-part"}).ok());  // still referenced
  ASSERT_TRUE(Iptables(n1, {"-D", "OUTPUT", "-j", "LSM-part02-part"}).ok());
  ASSERT_TRUE(Iptables(n1, {"-X", "LSM-part02-part"}).ok());
  // Options it does not model are refused, not ignored.
  EXPECT_FALSE(Iptables(n1, {"-A", "INPUT", "-p", "tcp", "--sport", "6379", "-j", "DROP"}).ok());
  EXPECT_FALSE(net.Iptables(FakeNet::kRoot, {"-A", "INPUT", "-j", "DROP"}).ok());
}

TEST(FakeNetTest, NamespacesAndVethPairsGoAsAWhole) {
  FakeNet net;
  ASSERT_TRUE(net.Ip({"netns", "add", "a"}).ok());
  EXPECT_FALSE(net.Ip({"netns", "add", "a"}).ok());
  ASSERT_TRUE(net.Ip({"link", "add", "br", "type", "bridge"}).ok());
  EXPECT_FALSE(net.Ip({"link", "add", "br", "type", "bridge"}).ok());
  ASSERT_TRUE(
      net.Ip({"link", "add", "h0", "type", "veth", "peer", "name", "n0", "netns", "a"}).ok());
  EXPECT_EQ(net.Links("a"), (std::vector<std::string>{"lo", "n0"}));
  EXPECT_EQ(net.ListLinks(), (std::vector<std::string>{"br", "h0"}));
  EXPECT_FALSE(net.Ip({"link", "set", "nope", "up"}).ok());
  EXPECT_FALSE(net.Ip({"link", "set", "h0", "master", "nope"}).ok());
  ASSERT_TRUE(net.Ip({"addr", "add", "198.18.0.1/28", "dev", "br"}).ok());
  EXPECT_EQ(net.Addresses(), std::set<std::string>{"198.18.0.1"});
  Status unknown = net.Ip({"-n", "a", "route", "add", "default"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().find("FakeNet does not understand"), std::string::npos);
  // Deleting the namespace takes its veth end, hence the pair.
  ASSERT_TRUE(net.Ip({"netns", "del", "a"}).ok());
  EXPECT_EQ(net.ListLinks(), std::vector<std::string>{"br"});
  ASSERT_TRUE(net.Ip({"link", "del", "br"}).ok());
  EXPECT_TRUE(net.Empty()) << ::testing::PrintToString(net.Describe());
  EXPECT_FALSE(net.Ip({"netns", "del", "a"}).ok());
}

TEST(FakeNetTest, InjectedFailuresHaveNoEffect) {
  FakeNet net;
  net.FailCommand("netns add b");
  Status s = net.Ip({"netns", "add", "b"});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("'ip netns add b' failed"), std::string::npos) << s.error();
  EXPECT_FALSE(net.NetnsExists("b"));
  EXPECT_TRUE(net.Ip({"netns", "add", "b"}).ok());  // once
  EXPECT_EQ(net.commands().size(), 2u);
}

TEST(FakeNetTest, AFakeClustersTeardownLeavesNothing) {
  FakeNet net;
  FakeCluster cluster({"n1", "n2"}, "part03", &net);
  FakeHost& n1 = *cluster.Fake("n1");
  ASSERT_TRUE(Iptables(n1, {"-A", "INPUT", "-s", "198.18.0.3", "-j", "DROP"}).ok());
  EXPECT_FALSE(net.Empty());
  ASSERT_TRUE(cluster.Teardown().ok());
  EXPECT_TRUE(net.Empty()) << ::testing::PrintToString(net.Describe());
}

}  // namespace
}  // namespace locksmith::testing
