// ServerProcess on a FakeHost (harness/testing): what one launch asks of the
// host (directories, files, the spawn), the readiness poll and how it ends,
// and the kill / pause / resume rules, with no server and no root. The
// readiness probe is the test's own function.
#include "backends/server_process.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <thread>

#include "base/testing/eventually.h"
#include "cluster/testing/fake_host.h"

namespace locksmith {
namespace {

using namespace std::chrono_literals;
using testing::Eventually;
using testing::FakeHost;

ServerProcessOptions Options(FakeHost& host, std::chrono::milliseconds ready_timeout = 30s) {
  return {ServiceNode{"n1", kPrimaryRole, host.Name(), "redis-server", host.Address(), 6379},
          &host, "redis-server", "redis.log", ready_timeout};
}

ServerLaunch RedisLaunch() {
  return {{"data"}, {{"redis.conf", "port 6379\n"}}, {"redis-server", "/fake-hosts/n1/redis.conf"}};
}

// Ready at once.
ReadinessProbe Ready() {
  return {[] { return OkStatus(); }, 1ms, "answer"};
}

// Never ready: every try fails with `why`.
ReadinessProbe Never(std::string why = "connection refused") {
  return {[why] { return Status(Error{why}); }, 1ms, "answer"};
}

TEST(ServerProcessTest, ALaunchMakesItsDirectoriesWritesItsFilesAndSpawnsItsArgv) {
  FakeHost host("n1");
  ServerProcess server(Options(host));
  int tries = 0;
  ReadinessProbe third_time{[&tries] {
                              return ++tries < 3 ? Status(Error{"loading"}) : OkStatus();
                            },
                            1ms, "answer"};
  ASSERT_TRUE(server.Launch(RedisLaunch(), third_time).ok());
  EXPECT_EQ(tries, 3);

  EXPECT_TRUE(host.directories().contains("data"));
  EXPECT_EQ(host.file("redis.conf"), "port 6379\n");
  const auto spawns = host.spawns();
  ASSERT_EQ(spawns.size(), 1u);
  EXPECT_EQ(spawns[0].spec.argv,
            (std::vector<std::string>{"redis-server", "/fake-hosts/n1/redis.conf"}));
  EXPECT_EQ(spawns[0].spec.log_path, "/fake-hosts/n1/redis.log");
  EXPECT_EQ(spawns[0].spec.cwd, "/fake-hosts/n1");
  EXPECT_TRUE(server.IsUp());
  EXPECT_TRUE(server.Responsive());

  server.Stop();
  EXPECT_EQ(host.kills(), std::vector<int>{spawns[0].pid});
  EXPECT_FALSE(server.IsUp());
  server.Stop();  // never fails, kills nothing twice
  EXPECT_EQ(host.kills().size(), 1u);
}

TEST(ServerProcessTest, ALaunchWithoutFilesKeepsWhatAnEarlierStartLeft) {
  FakeHost host("n1");
  ServerProcess server(Options(host));
  ASSERT_TRUE(server.Launch(RedisLaunch(), Ready()).ok());
  ASSERT_TRUE(server.Kill().ok());
  host.PutFile("redis.conf", "rewritten by the server\n");
  ASSERT_TRUE(server.Launch({{}, {}, {"redis-server", "/fake-hosts/n1/redis.conf"}}, Ready()).ok());
  EXPECT_EQ(host.writes().size(), 1u);
  EXPECT_EQ(host.file("redis.conf"), "rewritten by the server\n");
  EXPECT_EQ(host.spawns().size(), 2u);
}

TEST(ServerProcessTest, KillPauseAndResumeFollowTheServersState) {
  FakeHost host("n1");
  ServerProcess server(Options(host));
  EXPECT_EQ(server.Kill().error(), "n1 is already down");
  EXPECT_EQ(server.Pause().error(), "n1 is down");
  ASSERT_TRUE(server.Launch(RedisLaunch(), Ready()).ok());
  const int pid = host.spawns().at(0).pid;

  EXPECT_EQ(server.Resume().error(), "n1 is not paused");
  ASSERT_TRUE(server.Pause().ok());
  EXPECT_TRUE(host.stopped(pid));
  EXPECT_FALSE(server.Responsive());
  EXPECT_TRUE(server.IsUp());  // paused counts as up
  EXPECT_EQ(server.Pause().error(), "n1 is already paused");
  ASSERT_TRUE(server.Resume().ok());
  EXPECT_FALSE(host.stopped(pid));
  EXPECT_TRUE(server.Responsive());
  ASSERT_EQ(host.signals().size(), 2u);
  EXPECT_EQ(host.signals()[0].signal, SIGSTOP);
  EXPECT_EQ(host.signals()[1].signal, SIGCONT);

  EXPECT_EQ(server.Launch(RedisLaunch(), Ready()).error(), "n1 is already running");
  // A paused server killed is down and no longer paused.
  ASSERT_TRUE(server.Pause().ok());
  ASSERT_TRUE(server.Kill().ok());
  EXPECT_EQ(host.kills(), std::vector<int>{pid});
  EXPECT_FALSE(server.IsUp());
  EXPECT_FALSE(server.Responsive());
  EXPECT_EQ(server.Kill().error(), "n1 is already down");
  EXPECT_EQ(server.Resume().error(), "n1 is down");
  ASSERT_TRUE(server.Launch(RedisLaunch(), Ready()).ok());
  EXPECT_TRUE(server.Pause().ok()) << "a new start is not paused";
}

TEST(ServerProcessTest, AServerWhoseProcessDiedIsNotUpAndCanBeStartedAgain) {
  FakeHost host("n1");
  ServerProcess server(Options(host));
  ASSERT_TRUE(server.Launch(RedisLaunch(), Ready()).ok());
  host.Exit(host.spawns().at(0).pid);
  EXPECT_FALSE(server.IsUp());
  ASSERT_TRUE(server.Launch(RedisLaunch(), Ready()).ok());
  EXPECT_EQ(host.spawns().size(), 2u);
}

TEST(ServerProcessTest, AServerThatExitsAtStartFailsWithTheEndOfItsLogAndIsDown) {
  FakeHost host("n1");
  host.PutFile("redis.log", "one\ntwo\nthree\n# Fatal error, can't open config file\n");
  host.OnSpawn([&host](int pid) { host.Exit(pid); });
  ServerProcess server(Options(host));
  auto s = server.Launch(RedisLaunch(), Never());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error(),
            "n1: redis-server exited at start: two | three | "
            "# Fatal error, can't open config file");
  EXPECT_EQ(server.Kill().error(), "n1 is already down");
}

TEST(ServerProcessTest, AServerNotReadyByTheDeadlineFailsWithTheProbesLastAnswer) {
  FakeHost host("n1");
  ServerProcess server(Options(host, 50ms));
  // The first try itself outlasts the deadline: the loop ends after it.
  ReadinessProbe slow{[] {
                        std::this_thread::sleep_for(60ms);
                        return Status(Error{"connection refused"});
                      },
                      1ms, "serve"};
  auto s = server.Launch(RedisLaunch(), slow);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error(), "n1: redis-server did not serve within 50 ms: connection refused");
  EXPECT_TRUE(server.IsUp()) << "a slow server keeps running; the service decides";

  ServerProcess late(Options(host));
  auto pid = late.Spawn(RedisLaunch());
  ASSERT_TRUE(pid.ok()) << pid.error();
  auto never_tried = late.AwaitReady(*pid, std::chrono::steady_clock::now() - 1ms, Never());
  EXPECT_EQ(never_tried.error(), "n1: redis-server did not answer within 30000 ms: not tried");
}

TEST(ServerProcessTest, HostFailuresNameTheNodeAndSpawnNothing) {
  FakeHost host("n1");
  ServerProcess server(Options(host));
  host.Fail(FakeHost::Op::kMakeDirectory, "read-only file system", 1);
  EXPECT_EQ(server.Launch(RedisLaunch(), Ready()).error(), "n1: read-only file system");
  host.Fail(FakeHost::Op::kWriteFile, "disk full", 1);
  EXPECT_EQ(server.Launch(RedisLaunch(), Ready()).error(), "n1: disk full");
  host.Fail(FakeHost::Op::kSpawn, "no such program", 1);
  EXPECT_EQ(server.Spawn(RedisLaunch()).error(),
            "n1: cannot start redis-server: host n1: no such program");
  EXPECT_TRUE(host.spawns().empty());
  EXPECT_FALSE(server.IsUp());
  ASSERT_TRUE(server.Launch(RedisLaunch(), Ready()).ok()) << "a failed start leaves no state";
}

// The server's lock is not held while it is probed: a fault on it during its
// readiness poll does not wait for the poll, and a second launch is refused.
TEST(ServerProcessTest, ALaunchWaitingForReadinessBlocksNeitherFaultsNorStop) {
  FakeHost host("n1");
  ServerProcess server(Options(host));
  std::atomic<bool> ready{false};
  ReadinessProbe gate{[&ready] { return ready ? OkStatus() : Status(Error{"loading"}); }, 1ms,
                      "answer"};
  Status launched = Error{"not yet"};
  std::thread launcher([&] { launched = server.Launch(RedisLaunch(), gate); });
  ASSERT_TRUE(Eventually([&] { return !host.spawns().empty(); }, "the server is spawned"));
  EXPECT_EQ(server.Launch(RedisLaunch(), Ready()).error(), "n1 is already starting");
  EXPECT_EQ(server.Spawn(RedisLaunch()).error(), "n1 is already starting");
  EXPECT_TRUE(server.Pause().ok());
  EXPECT_TRUE(server.Resume().ok());
  ready = true;
  launcher.join();
  EXPECT_TRUE(launched.ok()) << launched.error();

  // Stopped while it waits: the wait ends and says so.
  ASSERT_TRUE(server.Kill().ok());
  ready = false;
  std::thread again([&] { launched = server.Launch(RedisLaunch(), gate); });
  ASSERT_TRUE(Eventually([&] { return host.spawns().size() == 2; }, "the server is respawned"));
  server.Stop();
  again.join();
  EXPECT_EQ(launched.error(), "n1: redis-server was stopped while starting");
  EXPECT_TRUE(host.live().empty());
}

}  // namespace
}  // namespace locksmith
