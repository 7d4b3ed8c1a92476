// ZookeeperService and its helpers without servers: the zoo.cfg and argv of
// a peer, the parsing of four-letter-word answers, the order of a fair
// lock's waiters, and what the service asks of its hosts before any peer
// answers (FakeHosts: nothing runs).
#include "backends/zookeeper_service.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <boost/asio/io_context.hpp>

#include "backends/zk_admin.h"
#include "backends/zk_lock_client.h"
#include "cluster/testing/fake_cluster.h"

namespace locksmith {
namespace {

using testing::FakeCluster;

std::vector<ZkPeerAddress> ThreePeers() {
  return {{1, "198.18.0.2", 2181, 2888, 3888},
          {2, "198.18.0.3", 2181, 2888, 3888},
          {3, "198.18.0.4", 2181, 2888, 3888}};
}

TEST(ZookeeperServiceTest, ConfigNamesEveryPeerAndOnlyThisPeersClientAddress) {
  ZookeeperServiceOptions o;
  o.tick_ms = 200;
  o.min_session_ms = 400;
  o.max_session_ms = 9000;
  const std::string c = ZookeeperConfigText(o, ThreePeers(), 2, "/run/n2/zk-data");
  EXPECT_NE(c.find("tickTime=200\n"), std::string::npos) << c;
  EXPECT_NE(c.find("dataDir=/run/n2/zk-data\n"), std::string::npos);
  EXPECT_NE(c.find("clientPortAddress=198.18.0.3\n"), std::string::npos);
  EXPECT_NE(c.find("clientPort=2181\n"), std::string::npos);
  EXPECT_NE(c.find("minSessionTimeout=400\n"), std::string::npos);
  EXPECT_NE(c.find("maxSessionTimeout=9000\n"), std::string::npos);
  EXPECT_NE(c.find("admin.enableServer=false\n"), std::string::npos);
  EXPECT_NE(c.find("4lw.commands.whitelist=srvr,ruok,mntr,stat,cons\n"), std::string::npos);
  for (const auto& line : {"server.1=198.18.0.2:2888:3888\n", "server.2=198.18.0.3:2888:3888\n",
                           "server.3=198.18.0.4:2888:3888\n"}) {
    EXPECT_NE(c.find(line), std::string::npos) << line;
  }
}

TEST(ZookeeperServiceTest, ArgvRunsTheQuorumPeerInTheForegroundWithASmallHeap) {
  ZookeeperServiceOptions o;
  o.heap_mb = 128;
  const auto argv = ZookeeperArgv(o, "/d/zoo.cfg", "/d");
  ASSERT_GE(argv.size(), 3u);
  EXPECT_EQ(argv.front(), "/usr/bin/java");
  EXPECT_EQ(argv.back(), "/d/zoo.cfg");
  EXPECT_EQ(argv[argv.size() - 2], "org.apache.zookeeper.server.quorum.QuorumPeerMain");
  EXPECT_NE(std::find(argv.begin(), argv.end(), "-Xmx128m"), argv.end());
}

TEST(ZookeeperServiceTest, ParsesTheModeOfASrvrAnswer) {
  auto mode = ParseZkMode("Zookeeper version: 3.8.0\nLatency min/avg/max: 0/0.0/0\nMode: leader\n"
                          "Node count: 5\n");
  ASSERT_TRUE(mode.ok()) << mode.error();
  EXPECT_EQ(*mode, "leader");
  auto none = ParseZkMode("This ZooKeeper instance is not currently serving requests\n");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().find("not currently serving"), std::string::npos);
}

TEST(ZookeeperServiceTest, FindsTheEstablishmentTimeOfOneSessionInCons) {
  const std::string cons =
      " /127.0.0.1:40000[1](queued=0,recved=3,sent=3,sid=0x100000abc,lop=PING,est=1700000000123,"
      "to=2000,lcxid=0x0,lzxid=0x5,lresp=1,llat=0,minlat=0,avglat=0.0,maxlat=1)\n"
      " /127.0.0.1:40001[1](queued=0,recved=1,sent=1,sid=0x100000abd,est=1700000000999,to=2000)\n"
      " /127.0.0.1:40002[0](queued=0,recved=1,sent=0)\n";
  auto est = ParseZkConnectionEstablished(cons, 0x100000abd);
  ASSERT_TRUE(est.ok()) << est.error();
  EXPECT_EQ(*est, 1700000000999);
  EXPECT_FALSE(ParseZkConnectionEstablished(cons, 0x100000ab).ok()) << "a prefix is not a match";
}

TEST(ZookeeperServiceTest, FairWaitersAreOrderedBySequenceNotByName) {
  EXPECT_EQ(ZkSequenceOf("_c_ab-lock-0000000012"), 12);
  EXPECT_EQ(ZkSequenceOf("_c_ab-lock-"), -1);
  EXPECT_EQ(ZkSequenceOf("stray"), -1);
  const auto sorted = ZkSortedBySequence(
      {"_c_zz-lock-0000000003", "_c_aa-lock-0000000010", "stray", "_c_mm-lock-0000000001"});
  EXPECT_EQ(sorted, (std::vector<std::string>{"_c_mm-lock-0000000001", "_c_zz-lock-0000000003",
                                              "_c_aa-lock-0000000010"}));
}

TEST(ZookeeperServiceTest, ReadWriteNodesAreOrderedTogetherBySequence) {
  EXPECT_EQ(ZkSequenceOf("_c_ab-read-0000000007"), 7);
  EXPECT_EQ(ZkSequenceOf("_c_ab-write-0000000008"), 8);
  EXPECT_EQ(ZkSequenceOf("_c_ab-other-0000000008"), -1);
  EXPECT_TRUE(ZkIsReadNode("_c_ab-read-0000000007"));
  EXPECT_FALSE(ZkIsReadNode("_c_ab-write-0000000008"));
  EXPECT_FALSE(ZkIsReadNode("_c_ab-lock-0000000008"));
  const auto sorted = ZkSortedBySequence(
      {"_c_c-write-0000000003", "_c_a-read-0000000001", "_c_b-read-0000000002"});
  EXPECT_EQ(sorted, (std::vector<std::string>{"_c_a-read-0000000001", "_c_b-read-0000000002",
                                              "_c_c-write-0000000003"}));
}

TEST(ZookeeperServiceTest, AReaderWaitsForTheNearestEarlierWriterAWriterForItsPredecessor) {
  // r1 r2 w3 r4 r5 w6 w7 r8
  const std::vector<std::string> sorted = {
      "_c_a-read-0000000001", "_c_b-read-0000000002", "_c_c-write-0000000003",
      "_c_d-read-0000000004", "_c_e-read-0000000005", "_c_f-write-0000000006",
      "_c_g-write-0000000007", "_c_h-read-0000000008"};
  EXPECT_EQ(ZkBlockerOf(sorted, 0), -1);  // the first reader holds
  EXPECT_EQ(ZkBlockerOf(sorted, 1), -1);  // so does a reader after readers only
  EXPECT_EQ(ZkBlockerOf(sorted, 2), 1);   // a writer watches the reader before it
  EXPECT_EQ(ZkBlockerOf(sorted, 3), 2);   // readers after w3 watch w3 only
  EXPECT_EQ(ZkBlockerOf(sorted, 4), 2);
  EXPECT_EQ(ZkBlockerOf(sorted, 5), 4);
  EXPECT_EQ(ZkBlockerOf(sorted, 6), 5);
  EXPECT_EQ(ZkBlockerOf(sorted, 7), 6);   // the nearest writer, not the first
  // zk-fair's nodes are all exclusive: each waits for its predecessor.
  const std::vector<std::string> fair = {"_c_a-lock-0000000001", "_c_b-lock-0000000002"};
  EXPECT_EQ(ZkBlockerOf(fair, 0), -1);
  EXPECT_EQ(ZkBlockerOf(fair, 1), 0);
}

TEST(ZookeeperServiceTest, OnlyZkRwTakesSharedLocks) {
  boost::asio::io_context io;
  for (const std::string& name : ZkRecipeNames()) {
    auto client = MakeZkLockClient(name, io.get_executor(), {}, 1);
    ASSERT_TRUE(client.ok()) << client.error();
    EXPECT_EQ((*client)->SupportsShared(), name == "zk-rw") << name;
  }
  EXPECT_EQ(ZkSharedRecipeNames(), (std::vector<std::string>{"zk-rw"}));
}

TEST(ZookeeperServiceTest, ALockIsLostOnExpiryOrACutLongerThanTheSession) {
  using std::chrono::milliseconds;
  const auto now = std::chrono::steady_clock::now();
  const milliseconds session(1000);
  // Connected, or cut off for less than the session timeout: still held.
  EXPECT_EQ(ZkLockLostReason(false, std::nullopt, session, now), "");
  EXPECT_EQ(ZkLockLostReason(false, now - milliseconds(999), session, now), "");
  EXPECT_EQ(ZkLockLostReason(false, now - milliseconds(1000), session, now), "");
  // Cut off longer than the session: the server may have expired it.
  EXPECT_EQ(ZkLockLostReason(false, now - milliseconds(1500), session, now),
            "lock lost: cut off from the ensemble for 1500 ms, longer than the session "
            "timeout (1000 ms)");
  // The server said so: lost whatever the clock says.
  EXPECT_EQ(ZkLockLostReason(true, std::nullopt, session, now), "lock lost: the session expired");
  EXPECT_EQ(ZkLockLostReason(true, now, session, now), "lock lost: the session expired");
}

TEST(ZookeeperServiceTest, AClientHoldingNothingReportsNoLoss) {
  boost::asio::io_context io;
  auto client = MakeZkLockClient("zk-fair", io.get_executor(), {}, 1);
  ASSERT_TRUE(client.ok()) << client.error();
  int events = 0;
  (*client)->SetEventSink([&events](LockEvent) { ++events; });
  (*client)->SetPaused(true);
  (*client)->SetPaused(false);
  io.run();
  EXPECT_EQ(events, 0);
  EXPECT_EQ((*client)->Counters().at("locks_lost"), 0);
}

TEST(ZookeeperServiceTest, AnEvenEnsembleIsRefused) {
  FakeCluster cluster({"n1", "n2", "n3", "n4"});
  ZookeeperServiceOptions four;
  four.nodes = 4;
  OptionsOf<ZookeeperServiceOptions> options(four);
  BackendContext context{cluster};
  auto service = MakeZookeeperService(options, context);
  ASSERT_FALSE(service.ok());
  EXPECT_NE(service.error().find("odd"), std::string::npos) << service.error();
}

TEST(ZookeeperServiceTest, TheTableListsOnePeerPerHostAndNoLeaderBeforeStart) {
  FakeCluster cluster({"n1", "n2", "n3"});
  ZookeeperService service(cluster, ZookeeperServiceOptions{}, "zk-fair");
  const NodeTable table = service.Table();
  ASSERT_EQ(table.size(), 3u);
  for (const auto& node : table) {
    EXPECT_EQ(node.role, "zk-peer") << node.name;
    EXPECT_EQ(node.process, "java");
  }
  EXPECT_FALSE(service.Primary().ok());
  EXPECT_EQ(service.Settings()["client"], "zk-fair");
}

// A peer started again writes its myid and zoo.cfg and runs the JVM, with
// its log in the host's directory; one that exits at start is down.
TEST(ZookeeperServiceTest, StartingAPeerWritesItsFilesAndRunsTheJvmThroughItsHost) {
  FakeCluster cluster({"n1", "n2", "n3"});
  testing::FakeHost& n2 = *cluster.Fake("n2");
  n2.PutFile("zookeeper.log", "Invalid config, exiting abnormally\n");
  n2.OnSpawn([&n2](int pid) { n2.Exit(pid); });
  const ZookeeperServiceOptions options;
  ZookeeperService service(cluster, options, "zk-fair");

  auto started = service.StartNode("n2");
  ASSERT_FALSE(started.ok());
  EXPECT_EQ(started.error(),
            "n2: the zookeeper peer exited at start: Invalid config, exiting abnormally");
  EXPECT_TRUE(n2.directories().contains("zk-data"));
  EXPECT_EQ(n2.file("zk-data/myid"), "2\n");
  EXPECT_EQ(n2.file("zoo.cfg"),
            ZookeeperConfigText(options, service.Peers(), 2, "/fake-hosts/n2/zk-data"));
  const auto spawns = n2.spawns();
  ASSERT_EQ(spawns.size(), 1u);
  EXPECT_EQ(spawns[0].spec.argv,
            ZookeeperArgv(options, "/fake-hosts/n2/zoo.cfg", "/fake-hosts/n2"));
  EXPECT_EQ(spawns[0].spec.log_path, "/fake-hosts/n2/zookeeper.log");
  EXPECT_FALSE(service.IsUp("n2"));
  EXPECT_EQ(service.KillNode("n2").error(), "n2 is already down");
  EXPECT_EQ(service.KillNode("n9").error(), "no zookeeper peer n9 (peers: n1, n2, n3)");
  EXPECT_EQ(service.NodeHost("n2"), &n2);
  EXPECT_TRUE(cluster.Fake("n1")->spawns().empty());
}

TEST(ZookeeperServiceTest, UnknownRecipeIsAnError) {
  EXPECT_EQ(ZkRecipeNames(), (std::vector<std::string>{"zk-fair", "zk-naive", "zk-rw"}));
  boost::asio::io_context io;
  auto client = MakeZkLockClient("zk-nope", io.get_executor(), {}, 1);
  ASSERT_FALSE(client.ok());
  EXPECT_NE(client.error().find("zk-fair"), std::string::npos);
}

}  // namespace
}  // namespace locksmith
