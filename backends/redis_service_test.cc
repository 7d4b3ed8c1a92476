// RedisService without servers: its hosts are FakeHosts (cluster/testing)
// and a PongServer answers its readiness probe, so these tests check what
// the service asks of its hosts (files, spawns, signals), its node table and
// its locking, with no redis-server and no root.
#include "backends/redis_service.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "backends/redis_admin.h"
#include "backends/testing/pong_server.h"
#include "cluster/testing/fake_cluster.h"

namespace locksmith {
namespace {

using namespace std::chrono_literals;
using testing::FakeCluster;
using testing::FakeHost;
using testing::PongServer;

// A loopback port that refuses connections while this lives: bound, never
// listening. A node on it never answers its readiness probe.
class RefusingPort {
 public:
  RefusingPort() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    socklen_t len = sizeof(addr);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
  }
  ~RefusingPort() { close(fd_); }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

RedisServiceOptions Options(int nodes = 1) {
  RedisServiceOptions o;
  o.nodes = nodes;
  o.persistence = "always";
  o.password = "pw";
  o.ready_timeout = 30s;
  return o;
}

// Polls (bounded) until `done` holds.
template <typename Pred>
bool Eventually(Pred done) {
  const auto give_up = std::chrono::steady_clock::now() + 30s;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= give_up) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

TEST(ParseRedisTimeTest, TimeRepliesBecomeNanosecondsAndOddRepliesErrors) {
  auto reply = [](std::vector<std::string> parts) {
    RedisReply r;
    r.type = RedisReply::Type::kArray;
    for (auto& p : parts) {
      RedisReply e;
      e.type = RedisReply::Type::kString;
      e.str = p;
      r.elements.push_back(e);
    }
    return r;
  };
  auto ns = ParseRedisTime(reply({"1700000000", "123456"}));
  ASSERT_TRUE(ns.ok()) << ns.error();
  EXPECT_EQ(*ns, int64_t{1'700'000'000'123'456'000});
  EXPECT_FALSE(ParseRedisTime(reply({"1700000000"})).ok());
  EXPECT_FALSE(ParseRedisTime(reply({"17x", "0"})).ok());
  EXPECT_FALSE(ParseRedisTime(reply({"1", "1000000"})).ok());
  EXPECT_EQ(ParseRedisTime(RedisReply{}).error(), "TIME answered nil");
}

TEST(ParseRedisTimeTest, ASentinelsInfoServerGivesItsClock) {
  RedisReply info;
  info.type = RedisReply::Type::kString;
  info.str = "# Server\r\nredis_version:7.0.15\r\nserver_time_usec:1795721600232021\r\n"
             "uptime_in_seconds:1\r\n";
  auto ns = ParseInfoServerTime(info);
  ASSERT_TRUE(ns.ok()) << ns.error();
  EXPECT_EQ(*ns, int64_t{1'795'721'600'232'021'000});
  info.str = "# Server\r\nserver_time_usec:17x\r\n";
  EXPECT_FALSE(ParseInfoServerTime(info).ok());
  info.str = "# Server\r\nold_server_time_usec:1\r\n";
  EXPECT_FALSE(ParseInfoServerTime(info).ok());
  EXPECT_FALSE(ParseInfoServerTime(RedisReply{}).ok());
}

TEST(RedisConfigTextTest, BindsTheHostAddressWithAPasswordAndThePersistence) {
  std::string c = RedisConfigText("198.18.0.2", 6379, "p\"w", "everysec", "/d/data");
  EXPECT_NE(c.find("bind 198.18.0.2\n"), std::string::npos);
  EXPECT_NE(c.find("port 6379\n"), std::string::npos);
  EXPECT_NE(c.find("requirepass \"p\\\"w\"\n"), std::string::npos);
  EXPECT_NE(c.find("dir \"/d/data\"\n"), std::string::npos);
  EXPECT_NE(c.find("appendfsync everysec\n"), std::string::npos);
  EXPECT_NE(RedisConfigText("a", 1, "p", "none", "d").find("appendonly no\n"), std::string::npos);
}

TEST(RedisServiceTest, TheRegistryBuildsItFromItsOptionsAndTheRun) {
  auto options = (*FindBackend("redis"))->options();
  ASSERT_TRUE(options->set().Validate().ok());
  ASSERT_TRUE(options->set().Merge({{"redis_persistence", "sometimes"}}).ok());
  EXPECT_EQ(options->set().Validate().error(),
            "--redis-persistence must be one of none, everysec, always, not \"sometimes\"");
  ASSERT_TRUE(options->set().Merge({{"redis_persistence", "always"}}).ok());
  // The release retries (debate row 10) are the Redis clients' options,
  // declared with the backend's; their defaults: no retry.
  EXPECT_EQ(options->set().ToJson(),
            nlohmann::json({{"redis_persistence", "always"},
                            {"redis_release_retries", 0},
                            {"redis_release_retry_delay_ms", 100}}));
  FakeCluster cluster({"n1"});
  auto service = MakeLockService("redis", *options, {cluster, 7, std::chrono::milliseconds(250)});
  ASSERT_TRUE(service.ok()) << service.error();
  EXPECT_EQ((*service)->Settings(), nlohmann::json({{"persistence", "always"}}));
  EXPECT_EQ((*service)->Nodes(), std::vector<std::string>{"n1"});
  EXPECT_EQ(*BackendNodeNames("redis", *options), std::vector<std::string>{"n1"});
}

// The seed is in config.json and the report: a password drawn from it would
// let any reader of a report log into the servers of a live run or replay.
TEST(RedisServiceTest, TwoServicesBuiltWithTheSameSeedGetDifferentPasswords) {
  for (const std::string backend : {"redis", "redlock", "redis-sentinel"}) {
    auto options = (*FindBackend(backend))->options();
    auto hosts = BackendNodeNames(backend, *options);
    ASSERT_TRUE(hosts.ok()) << hosts.error();
    FakeCluster cluster(*hosts);
    const BackendContext context{cluster, 7, std::chrono::milliseconds(250)};
    auto first = MakeLockService(backend, *options, context);
    auto second = MakeLockService(backend, *options, context);
    ASSERT_TRUE(first.ok() && second.ok()) << backend;
    const std::vector<std::string> a = (*first)->Secrets(), b = (*second)->Secrets();
    ASSERT_EQ(a.size(), 1u) << backend;
    ASSERT_EQ(b.size(), 1u) << backend;
    EXPECT_GE(a[0].size(), 32u) << backend;
    EXPECT_NE(a[0], b[0]) << backend;
  }
}

TEST(RedisServiceTest, TheNodeTableAndDescriptionComeFromTheHosts) {
  FakeCluster cluster({"n1", "n2"});
  cluster.Fake("n1")->SetPort(6379, 20001);
  RedisService service(cluster, Options());
  const NodeTable expected = {{"n1", kPrimaryRole, "n1", "redis-server", "127.0.0.1", 20001}};
  EXPECT_EQ(service.Table(), expected);
  EXPECT_EQ(service.Nodes(), std::vector<std::string>{"n1"});
  EXPECT_EQ(service.Describe(), nlohmann::json::parse(R"({
      "backend": "redis", "persistence": "always",
      "nodes": [{"name": "n1", "role": "primary", "host": "n1", "process": "redis-server",
                 "address": "127.0.0.1", "port": 20001}]})"));
  auto primary = service.Primary();
  ASSERT_TRUE(primary.ok());
  EXPECT_EQ(*primary, "n1");
  EXPECT_NE(Capability<Killable>(service), nullptr);
  EXPECT_NE(Capability<Pausable>(service), nullptr);
  EXPECT_NE(Capability<HasPrimary>(service), nullptr);
}

TEST(RedisServiceTest, StartWritesTheConfigThroughTheHostAndSpawnsWithTheHostsEnvironment) {
  PongServer pong;
  FakeCluster cluster({"n1"});
  FakeHost& n1 = *cluster.Fake("n1");
  n1.SetPort(6379, pong.port());
  ASSERT_TRUE(n1.SetSpawnEnv("LD_PRELOAD=/shim.so").ok());
  RedisService service(cluster, Options());
  ASSERT_TRUE(service.Start().ok());

  EXPECT_TRUE(n1.directories().contains("data"));
  auto config = n1.file("redis.conf");
  ASSERT_TRUE(config.has_value());
  EXPECT_EQ(*config, RedisConfigText("127.0.0.1", pong.port(), "pw", "always",
                                     "/fake-hosts/n1/data"));
  auto spawns = n1.spawns();
  ASSERT_EQ(spawns.size(), 1u);
  EXPECT_EQ(spawns[0].spec.argv,
            (std::vector<std::string>{"redis-server", "/fake-hosts/n1/redis.conf"}));
  EXPECT_EQ(spawns[0].spec.log_path, "/fake-hosts/n1/redis.log");
  EXPECT_EQ(spawns[0].spec.env, std::vector<std::string>{"LD_PRELOAD=/shim.so"});

  service.Stop();
  EXPECT_EQ(n1.kills(), std::vector<int>{spawns[0].pid});
  EXPECT_TRUE(n1.live().empty());
}

TEST(RedisServiceTest, KillStartPauseAndResumeGoThroughTheHost) {
  PongServer pong;
  FakeCluster cluster({"n1"});
  FakeHost& n1 = *cluster.Fake("n1");
  n1.SetPort(6379, pong.port());
  RedisService service(cluster, Options());
  ASSERT_TRUE(service.Start().ok());
  const int first = n1.spawns().at(0).pid;

  ASSERT_TRUE(service.PauseNode("n1").ok());
  EXPECT_TRUE(n1.stopped(first));
  EXPECT_FALSE(service.PauseNode("n1").ok());  // already paused
  ASSERT_TRUE(service.ResumeNode("n1").ok());
  EXPECT_FALSE(n1.stopped(first));
  EXPECT_FALSE(service.ResumeNode("n1").ok());  // not paused
  ASSERT_EQ(n1.signals().size(), 2u);
  EXPECT_EQ(n1.signals()[0].signal, SIGSTOP);
  EXPECT_EQ(n1.signals()[1].signal, SIGCONT);

  EXPECT_FALSE(service.StartNode("n1").ok());  // already running
  ASSERT_TRUE(service.PauseNode("n1").ok());
  ASSERT_TRUE(service.KillNode("n1").ok());  // a paused node can be killed
  EXPECT_EQ(n1.kills(), std::vector<int>{first});
  EXPECT_FALSE(service.KillNode("n1").ok());   // already down
  EXPECT_FALSE(service.PauseNode("n1").ok());  // down
  ASSERT_TRUE(service.StartNode("n1").ok());
  ASSERT_EQ(n1.spawns().size(), 2u);
  EXPECT_TRUE(n1.live().contains(n1.spawns()[1].pid));

  auto unknown = service.KillNode("n7");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().find("n7"), std::string::npos);
  EXPECT_FALSE(service.PauseNode("n7").ok());
}

TEST(RedisServiceTest, ANodeThatExitsAtStartFailsWithTheEndOfItsLog) {
  RefusingPort refusing;
  FakeCluster cluster({"n1"});
  FakeHost& n1 = *cluster.Fake("n1");
  n1.SetPort(6379, refusing.port());
  n1.PutFile("redis.log", "starting\n# Fatal error, can't open config file\n");
  n1.OnSpawn([&](int pid) { n1.Exit(pid); });
  RedisService service(cluster, Options());
  auto s = service.Start();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("exited at start"), std::string::npos) << s.error();
  EXPECT_NE(s.error().find("can't open config file"), std::string::npos) << s.error();
  EXPECT_FALSE(service.KillNode("n1").ok());  // it is down, not half-started
}

TEST(RedisServiceTest, HostFailuresAreReportedWithTheNode) {
  FakeCluster cluster({"n1"});
  FakeHost& n1 = *cluster.Fake("n1");
  n1.SetPort(6379, 0);  // a loopback host whose port pool ran dry
  auto no_port = RedisService(cluster, Options()).Start();
  ASSERT_FALSE(no_port.ok());
  EXPECT_NE(no_port.error().find("n1: its host has no free port"), std::string::npos)
      << no_port.error();

  n1.SetPort(6379, 6379);
  RedisService service(cluster, Options());
  n1.Fail(FakeHost::Op::kWriteFile, "disk full", 1);
  auto write = service.Start();
  ASSERT_FALSE(write.ok());
  EXPECT_NE(write.error().find("n1: disk full"), std::string::npos) << write.error();
  n1.Fail(FakeHost::Op::kSpawn, "no such program", 1);
  auto spawn = service.Start();
  ASSERT_FALSE(spawn.ok());
  EXPECT_NE(spawn.error().find("no such program"), std::string::npos) << spawn.error();
  EXPECT_TRUE(n1.spawns().empty());
}

// The service's lock is not held while a node is polled for readiness: a
// fault on one node does not wait (up to ready_timeout) for another node to
// come up.
TEST(RedisServiceTest, AFaultOnOneNodeDoesNotWaitForAnotherNodesReadinessPoll) {
  PongServer pong;
  RefusingPort refusing;
  FakeCluster cluster({"n1", "n2"});
  FakeHost& slow = *cluster.Fake("n1");
  FakeHost& fast = *cluster.Fake("n2");
  slow.SetPort(6379, refusing.port());  // never answers
  fast.SetPort(6379, pong.port());
  RedisService service(cluster, Options(2));
  ASSERT_TRUE(service.StartNode("n2").ok());

  std::atomic<bool> slow_done{false};
  Status slow_status = OkStatus();
  std::thread starter([&] {
    slow_status = service.StartNode("n1");
    slow_done = true;
  });
  // n1 is spawned: from here its StartNode only polls.
  ASSERT_TRUE(Eventually([&] { return !slow.spawns().empty(); }));
  EXPECT_TRUE(service.KillNode("n2").ok());
  EXPECT_TRUE(service.StartNode("n2").ok());
  EXPECT_TRUE(service.PauseNode("n2").ok());
  EXPECT_TRUE(service.ResumeNode("n2").ok());
  EXPECT_FALSE(service.StartNode("n1").ok());  // one launch of a node at a time
  EXPECT_FALSE(slow_done) << "n2's faults waited for n1's readiness poll to end";

  // The slow node's process dies: its poll notices and ends.
  slow.Exit(slow.spawns().at(0).pid);
  starter.join();
  ASSERT_FALSE(slow_status.ok());
  EXPECT_NE(slow_status.error().find("exited at start"), std::string::npos) << slow_status.error();
  EXPECT_EQ(fast.spawns().size(), 2u);
}

TEST(RedisServiceTest, StopDuringAReadinessPollEndsIt) {
  RefusingPort refusing;
  FakeCluster cluster({"n1"});
  FakeHost& n1 = *cluster.Fake("n1");
  n1.SetPort(6379, refusing.port());
  RedisService service(cluster, Options());
  Status started = OkStatus();
  std::thread starter([&] { started = service.Start(); });
  ASSERT_TRUE(Eventually([&] { return !n1.spawns().empty(); }));
  service.Stop();
  starter.join();
  ASSERT_FALSE(started.ok());
  EXPECT_NE(started.error().find("stopped while starting"), std::string::npos) << started.error();
  EXPECT_TRUE(n1.live().empty());
}

}  // namespace
}  // namespace locksmith
