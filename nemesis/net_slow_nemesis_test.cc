#include "nemesis/net_slow_nemesis.h"

#include <gtest/gtest.h>

#include "backends/testing/fake_lock_service.h"
#include "cluster/testing/fake_cluster.h"

namespace locksmith {
namespace {

std::vector<NetEndpoint> Endpoints(Host* host) {
  return {{"n1", "198.18.0.2", host}, {"n2", "198.18.0.3", host}, {"c0", "198.19.0.1", nullptr}};
}

TEST(NetSlowPlanTest, AHostsConnectionsAreTakenWhereSentAndAClientsWhereTheyArrive) {
  int dummy = 0;
  Host* host = reinterpret_cast<Host*>(&dummy);  // only compared with null
  // n1 is slowed from n2 and c0; c0 from n1 (no one connects to a client).
  auto plan = PlanRedirects({{"n1", {"n2", "c0"}}, {"c0", {"n1"}}}, Endpoints(host));
  ASSERT_TRUE(plan.ok()) << plan.error();
  EXPECT_EQ(plan->size(), 2u);
  EXPECT_EQ(plan->at("n2"), (HostRedirects{{"198.18.0.2"}, {}}));
  EXPECT_EQ(plan->at("n1"), (HostRedirects{{}, {"198.19.0.1"}}));
  EXPECT_FALSE(PlanRedirects({{"n9", {"n1"}}}, Endpoints(host)).ok());
}

TEST(NetSlowPlanTest, TheRulesRedirectToTheRelayAndLetItsOwnConnectionsPass) {
  EXPECT_EQ(RedirectRules("LSM-t-slow", {{"198.18.0.3"}, {"198.19.0.1"}}, 40000, true),
            "*nat\n:LSM-t-slow - [0:0]\n"
            "-I OUTPUT 1 -j LSM-t-slow\n"
            "-I PREROUTING 1 -j LSM-t-slow\n"
            "-A LSM-t-slow -p tcp -d 198.18.0.3 -m mark ! --mark 0x4c53 -j REDIRECT "
            "--to-ports 40000\n"
            "-A LSM-t-slow -p tcp -s 198.19.0.1 -j REDIRECT --to-ports 40000\n"
            "COMMIT\n");
  // Later rules are appended: the chain is never flushed while the run lasts.
  EXPECT_EQ(RedirectRules("LSM-t-slow", {{}, {"198.19.0.2"}}, 40000, false),
            "*nat\n-A LSM-t-slow -p tcp -s 198.19.0.2 -j REDIRECT --to-ports 40000\nCOMMIT\n");
  EXPECT_EQ(RedirectRemovalRules("LSM-t-slow"),
            "*nat\n:LSM-t-slow - [0:0]\n-D OUTPUT -j LSM-t-slow\n-D PREROUTING -j LSM-t-slow\n"
            "-X LSM-t-slow\nCOMMIT\n");
}

TEST(NetSlowOptionsTest, TheToxicsAreCheckedAndTheWindowCarriesThem) {
  NetSlowOptions options;
  OptionSet set;
  options.Declare(set);
  EXPECT_TRUE(set.Validate().ok());
  options.jitter_ms = 600;
  EXPECT_EQ(set.Validate().error(),
            "--slow-*: \"jitter_ms\" (600) must be at most \"latency_ms\" (500)");
  options.jitter_ms = 0;
  options.latency_ms = 0;
  EXPECT_FALSE(set.Validate().ok()) << "a delay of nothing";
  options.mode = "stall";
  EXPECT_TRUE(set.Validate().ok());
  options.clients = "x";
  EXPECT_FALSE(set.Validate().ok());
  options.clients = "one";
  options.ms = 1500;
  const auto window = NetSlowWindow(options)(0, 10000);
  ASSERT_EQ(window.size(), 2u);
  EXPECT_EQ(window[0].op.f, "net-slow");
  EXPECT_EQ(window[0].op.value["mode"], "stall");
  EXPECT_EQ(window[1].op.f, "net-slow-heal");
  EXPECT_EQ(window[1].at_ms, 1500);
}

TEST(NetSlowNemesisTest, LoopbackHostsAreUnfit) {
  testing::FakeCluster cluster({"n1"}, "tag001");
  testing::ClusterTableService service(cluster);
  ClientFaults client_faults;
  OptionsOf<NetSlowOptions> options;
  const NemesisContext context{service, client_faults,
                               1, std::chrono::milliseconds(1000), &cluster, 2};
  EXPECT_EQ(NetSlowUnfit(options, context),
            "--nemesis net-slow needs hosts with networks of their own: run as root, without "
            "--loopback");
  EXPECT_FALSE(MakeNetSlowNemesis(options, context).ok());
}

TEST(NetSlowNemesisTest, HostsWhoseNetworkTheControllerCannotReachAreUnfit) {
  testing::FakeNet net;
  testing::FakeCluster cluster({"n1"}, "tag001", &net);  // own networks, but no sockets inside
  testing::ClusterTableService service(cluster);
  ClientFaults client_faults;
  OptionsOf<NetSlowOptions> options;
  const NemesisContext context{service, client_faults,
                               1, std::chrono::milliseconds(1000), &cluster, 2};
  EXPECT_EQ(NetSlowUnfit(options, context),
            "--nemesis net-slow needs hosts whose network the controller reaches (the local "
            "provider's namespaces); host n1 is not one");
  EXPECT_FALSE(MakeNetSlowNemesis(options, context).ok());
}

TEST(NetSlowNemesisTest, AHostThatCannotOpenASocketInItsNetworkFailsTheOpAndLeavesNoRule) {
  testing::FakeCluster cluster({"n1"}, "tag001");  // FakeHost: no socket in its network
  std::vector<NetEndpoint> endpoints = {{"n1", "198.18.0.2", cluster.Fake("n1")},
                                        {"c0", "198.19.0.1", nullptr}};
  testing::ClusterTableService service(cluster);
  NetSlowNemesis nemesis([&] { return service.Table(); }, 1, 5, "LSM-tag001-slow", endpoints);
  FaultResult r = nemesis.Invoke({"net-slow", {{"shape", "clients-from-nodes"},
                                               {"clients", "all"}, {"latency_ms", 100}}});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("cannot open a socket inside its network"), std::string::npos)
      << r.error;
  EXPECT_TRUE(nemesis.Teardown().empty());
  FaultResult into = nemesis.Invoke(
      {"net-slow", {{"shape", "into"}, {"host", "nope"}, {"latency_ms", 100}}});
  EXPECT_FALSE(into.ok);
  EXPECT_EQ(into.error, "\"host\" names \"nope\", which is no host of this run");
  FaultResult bad = nemesis.Invoke({"net-slow", {{"mode", "gently"}}});
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.error, "\"mode\" must be one of delay, stall, reset, not \"gently\"");
}

}  // namespace
}  // namespace locksmith
