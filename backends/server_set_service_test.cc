// ServerSetService's start on FakeHosts: the hosts and ports it checks
// first (with the errors every service gives), a prepare step before any
// spawn, every server spawned before the first is probed, and a leader
// awaited within the same deadline.
#include "backends/server_set_service.h"

#include <gtest/gtest.h>

#include "cluster/testing/fake_cluster.h"
#include "cluster/testing/fake_host.h"

namespace locksmith {
namespace {

using namespace std::chrono_literals;
using testing::FakeHost;

// A service of one server per host, each the primary of its own data,
// that only starts.
class StartOnlyService : public ServerSetService {
 public:
  explicit StartOnlyService(const std::vector<FakeHost*>& hosts, std::string password = "")
      : ServerSetService({"test", "test node", "nodes", std::move(password)}) {
    const std::vector<Host*> all(hosts.begin(), hosts.end());
    const NodeTable table = PrimaryPerHost(all, static_cast<int>(all.size()), "server", 7000);
    for (size_t i = 0; i < table.size(); ++i) {
      AddServer({table[i], hosts[i], "the test server", table[i].name + ".log", 200ms});
    }
  }

  Status Start() override { return StartServers(plan); }
  std::unique_ptr<LockClient> NewClient(boost::asio::any_io_executor, const ClientSlot&) override {
    return nullptr;
  }

  StartPlan plan{.backend = "test",
                 .hosts = 2,
                 .launch_of = [](size_t) { return ServerLaunch{{}, {}, {"server"}}; },
                 .probe_of = [](size_t) { return ReadinessProbe{[] { return OkStatus(); }, 1ms}; },
                 .ready_timeout = 200ms};

 private:
  Status Relaunch(size_t) override { return OkStatus(); }
};

TEST(ServerSetServiceTest, TooFewHostsOrAPortMissingIsSaidBeforeAnythingRuns) {
  FakeHost a("a");
  StartOnlyService none({});
  EXPECT_EQ(none.Start().error(), "the test backend needs 2 hosts, the cluster has none");
  StartOnlyService one({&a});
  EXPECT_EQ(one.Start().error(), "the test backend needs 2 hosts, the cluster has 1");
  one.plan.hosts = 1;
  one.plan.more_ports = [](size_t) { return std::vector<int>{7001, 0}; };
  EXPECT_EQ(one.Start().error(), "a: its host has no free port left");
  EXPECT_TRUE(a.spawns().empty());

  FakeHost b("b");
  b.SetPort(7000, 0);
  StartOnlyService unlucky({&a, &b});
  EXPECT_EQ(unlucky.Start().error(), "b: its host has no free port left");
  EXPECT_TRUE(a.spawns().empty());
}

TEST(ServerSetServiceTest, PreparesThenSpawnsEveryServerBeforeProbingAnyThenAwaitsTheLeader) {
  FakeHost a("a");
  FakeHost b("b");
  StartOnlyService service({&a, &b});
  std::vector<std::string> steps;
  service.plan.prepare = [&] {
    steps.push_back("prepare with " + std::to_string(a.spawns().size()) + " spawned");
    return OkStatus();
  };
  service.plan.probe_of = [&](size_t i) {
    return ReadinessProbe{[&, i] {
                            steps.push_back("probe " + std::to_string(i) + " with " +
                                            std::to_string(b.spawns().size()) + " spawned on b");
                            return OkStatus();
                          },
                          1ms};
  };
  int asked = 0;
  service.plan.leader = [&]() -> Result<std::string> {
    if (++asked < 3) return Error{"no leader yet"};
    return std::string("n2");
  };
  service.plan.leader_poll = 1ms;
  ASSERT_TRUE(service.Start().ok());
  EXPECT_EQ(steps,
            (std::vector<std::string>{"prepare with 0 spawned", "probe 0 with 1 spawned on b",
                                      "probe 1 with 1 spawned on b"}));
  EXPECT_EQ(asked, 3);
  EXPECT_TRUE(service.IsUp("a"));
  EXPECT_TRUE(service.IsUp("b"));
}

TEST(ServerSetServiceTest, AFailedPrepareSpawnsNothingAndNoLeaderInTimeIsNamed) {
  FakeHost a("a");
  FakeHost b("b");
  StartOnlyService unprepared({&a, &b});
  unprepared.plan.prepare = [] { return Status(Error{"n1: install failed"}); };
  EXPECT_EQ(unprepared.Start().error(), "n1: install failed");
  EXPECT_TRUE(a.spawns().empty());

  StartOnlyService leaderless({&a, &b});
  leaderless.plan.leader = []() -> Result<std::string> { return Error{"n1: follower"}; };
  leaderless.plan.leader_poll = 5ms;
  leaderless.plan.group = "the test quorum";
  EXPECT_EQ(leaderless.Start().error(),
            "the test quorum elected no leader within 200 ms: n1: follower");
  EXPECT_EQ(leaderless.ready_after(), 0ms);
}

TEST(ServerSetServiceTest, TheNamingTableSecretAndFixedPrimaryComeFromWhatItWasBuiltWith) {
  FakeHost a("a");
  FakeHost b("b");
  StartOnlyService none({});
  EXPECT_EQ(none.Backend(), "test");
  EXPECT_TRUE(none.Secrets().empty());
  EXPECT_EQ(none.Primary().error(), "the test service has no node");

  StartOnlyService one({&a}, "pw");
  EXPECT_EQ(one.Secrets(), std::vector<std::string>{"pw"});
  ASSERT_EQ(one.Table().size(), 1u);
  EXPECT_EQ(one.Table()[0].name, "a");
  EXPECT_EQ(one.Table()[0].role, kPrimaryRole);
  EXPECT_EQ(one.Table()[0].port, 7000);
  EXPECT_EQ(*one.Primary(), "a");
  EXPECT_FALSE(one.Promotes());

  StartOnlyService masters({&a, &b});
  EXPECT_EQ(masters.Nodes(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(masters.Primary().error(), "2 independent masters: none leads");
}

struct RunTakingOptions {
  std::string password;
  std::chrono::milliseconds client_timeout{500};
  std::string client = "default-client";
  bool fencing = false;
};

TEST(ServerSetServiceTest, TakeRunSettingsDrawsAPasswordAndKeepsTheDefaultClientUnlessOneIsChosen) {
  testing::FakeCluster cluster({"a"});
  BackendContext context{cluster, 7, 1234ms, "", true};
  RunTakingOptions first;
  ASSERT_TRUE(TakeRunSettings(first, context).ok());
  EXPECT_FALSE(first.password.empty());
  EXPECT_EQ(first.client_timeout, 1234ms);
  EXPECT_EQ(first.client, "default-client");
  EXPECT_TRUE(first.fencing);
  context.client = "chosen";
  RunTakingOptions second;
  ASSERT_TRUE(TakeRunSettings(second, context).ok());
  EXPECT_EQ(second.client, "chosen");
  EXPECT_NE(second.password, first.password);
}

}  // namespace
}  // namespace locksmith
