// EtcdService and its lock client's pure parts without servers: a member's
// argv and initial cluster, the refusal of an even cluster, the table
// before start, what a start and a stop ask of its host, a lease's TTL in
// seconds and what one keep-alive's answer means for the lease.
#include "backends/etcd_service.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "backends/etcd_lease_keeper.h"
#include "cluster/testing/fake_cluster.h"

namespace locksmith {
namespace {

using testing::FakeCluster;

std::vector<EtcdMemberAddress> ThreeMembers() {
  return {{"n1", "198.18.0.2", 2379, 2380},
          {"n2", "198.18.0.3", 2379, 2380},
          {"n3", "198.18.0.4", 2379, 2380}};
}

bool Has(const std::vector<std::string>& argv, const std::string& arg) {
  return std::find(argv.begin(), argv.end(), arg) != argv.end();
}

TEST(EtcdServiceTest, ArgvListensOnItsOwnAddressAndNamesEveryMember) {
  EtcdServiceOptions o;
  o.heartbeat_ms = 50;
  o.election_ms = 600;
  const auto argv = EtcdArgv(o, ThreeMembers(), 1, "/run/n2/etcd-data", "locksmith-t1");
  ASSERT_FALSE(argv.empty());
  EXPECT_EQ(argv.front(), "/usr/bin/etcd");
  for (const std::string arg :
       {"--name=n2", "--data-dir=/run/n2/etcd-data", "--listen-client-urls=http://198.18.0.3:2379",
        "--advertise-client-urls=http://198.18.0.3:2379",
        "--listen-peer-urls=http://198.18.0.3:2380",
        "--initial-advertise-peer-urls=http://198.18.0.3:2380",
        "--initial-cluster=n1=http://198.18.0.2:2380,n2=http://198.18.0.3:2380,"
        "n3=http://198.18.0.4:2380",
        "--initial-cluster-token=locksmith-t1", "--heartbeat-interval=50",
        "--election-timeout=600"}) {
    EXPECT_TRUE(Has(argv, arg)) << arg;
  }
}

TEST(EtcdServiceTest, AnEvenClusterIsRefused) {
  FakeCluster cluster({"n1", "n2", "n3", "n4"});
  EtcdServiceOptions four;
  four.nodes = 4;
  OptionsOf<EtcdServiceOptions> options(four);
  BackendContext context{cluster};
  auto service = MakeEtcdService(options, context);
  ASSERT_FALSE(service.ok());
  EXPECT_NE(service.error().find("odd"), std::string::npos) << service.error();
}

TEST(EtcdServiceTest, TheTableListsOneMemberPerHostAndNoLeaderBeforeStart) {
  FakeCluster cluster({"n1", "n2", "n3"});
  EtcdService service(cluster, EtcdServiceOptions{});
  const NodeTable table = service.Table();
  ASSERT_EQ(table.size(), 3u);
  for (const auto& node : table) {
    EXPECT_EQ(node.role, "etcd-member") << node.name;
    EXPECT_EQ(node.process, "etcd");
  }
  EXPECT_FALSE(service.Primary().ok());
  EXPECT_EQ(Capability<HasClocks>(service), nullptr);
  EXPECT_NE(Capability<HasNodeProcesses>(service), nullptr);
}

// A member started again makes its data directory and runs etcd through
// its host, its log in the host's directory; one that exits at start is down.
TEST(EtcdServiceTest, StartingAMemberRunsEtcdThroughItsHost) {
  FakeCluster cluster({"n1", "n2", "n3"});
  testing::FakeHost& n3 = *cluster.Fake("n3");
  n3.PutFile("etcd.log", "member has already been bootstrapped\n");
  n3.OnSpawn([&n3](int pid) { n3.Exit(pid); });
  EtcdService service(cluster, EtcdServiceOptions{});
  auto started = service.StartNode("n3");
  ASSERT_FALSE(started.ok());
  EXPECT_EQ(started.error(), "n3: the etcd member exited at start: member has already been bootstrapped");
  EXPECT_TRUE(n3.directories().contains("etcd-data"));
  const auto spawns = n3.spawns();
  ASSERT_EQ(spawns.size(), 1u);
  EXPECT_TRUE(Has(spawns[0].spec.argv, "--data-dir=/fake-hosts/n3/etcd-data"));
  EXPECT_EQ(spawns[0].spec.log_path, "/fake-hosts/n3/etcd.log");
  EXPECT_FALSE(service.IsUp("n3"));
  EXPECT_EQ(service.KillNode("n9").error(), "no etcd member n9 (members: n1, n2, n3)");
  EXPECT_TRUE(cluster.Fake("n1")->spawns().empty());
}

// Stop removes the log segments etcd preallocates (64 MB each) and keeps
// the member's own log.
TEST(EtcdServiceTest, StoppingRemovesThePreallocatedLogAndKeepsTheMembersLog) {
  FakeCluster cluster({"n1", "n2", "n3"});
  testing::FakeHost& n1 = *cluster.Fake("n1");
  const std::string first = "etcd-data/member/wal/0000000000000000-0000000000000000.wal";
  n1.PutFile(first, "wal");
  n1.PutFile("etcd-data/member/wal/0.tmp", "next");
  n1.PutFile("etcd.log", "started");
  EtcdService service(cluster, EtcdServiceOptions{});
  service.Stop();
  EXPECT_EQ(n1.file(first), std::nullopt);
  EXPECT_EQ(n1.file("etcd-data/member/wal/0.tmp"), std::nullopt);
  EXPECT_EQ(n1.file("etcd.log"), "started");
}

TEST(EtcdServiceTest, ALeaseAsksForWholeSecondsRoundedUp) {
  using std::chrono::milliseconds;
  EXPECT_EQ(EtcdTtlSeconds(milliseconds(1)), 1);
  EXPECT_EQ(EtcdTtlSeconds(milliseconds(1000)), 1);
  EXPECT_EQ(EtcdTtlSeconds(milliseconds(1001)), 2);
  EXPECT_EQ(EtcdTtlSeconds(milliseconds(30000)), 30);
}

EtcdCall Answered(int status, const std::string& body) {
  EtcdCall call;
  call.fate = EtcdCall::Fate::kAnswered;
  call.reply = *ParseEtcdReply(status, body);
  return call;
}

TEST(EtcdServiceTest, AKeepAliveRenewsIsGoneOrFailsAsItsAnswerSays) {
  const auto renewed = JudgeKeepAlive(Answered(200, R"({"result":{"ID":"5","TTL":"3"}})"));
  EXPECT_EQ(renewed.kind, KeepAliveVerdict::Kind::kRenewed);
  EXPECT_EQ(renewed.ttl_s, 3);
  EXPECT_EQ(JudgeKeepAlive(Answered(200, R"({"result":{"ID":"5"}})")).kind,
            KeepAliveVerdict::Kind::kGone);
  EXPECT_EQ(JudgeKeepAlive(Answered(404, R"({"error":"etcdserver: requested lease not found",
                                            "code":5})"))
                .kind,
            KeepAliveVerdict::Kind::kGone);
  const auto no_leader = JudgeKeepAlive(Answered(503, R"({"error":"etcdserver: no leader","code":14})"));
  EXPECT_EQ(no_leader.kind, KeepAliveVerdict::Kind::kFailed);
  EXPECT_EQ(no_leader.outcome, Outcome::kFail);
  EtcdCall lost;
  lost.fate = EtcdCall::Fate::kNoAnswer;
  lost.error = "no reply";
  EXPECT_EQ(JudgeKeepAlive(lost).outcome, Outcome::kUnknown);
  lost.fate = EtcdCall::Fate::kNotSent;
  EXPECT_EQ(JudgeKeepAlive(lost).outcome, Outcome::kFail);
}

}  // namespace
}  // namespace locksmith
