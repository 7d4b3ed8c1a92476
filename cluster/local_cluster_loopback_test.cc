// LocalCluster in loopback mode and CleanupLeftovers' process handling: no
// root needed (namespaces are covered by the integration test).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "base/testing/eventually.h"
#include "base/testing/temp_dir.h"
#include "cluster/cleanup.h"
#include "cluster/local_cluster.h"
#include "cluster/net_plan.h"
#include "cluster/proc_info.h"
#include "cluster/run_registry.h"

namespace locksmith {
namespace {
namespace fs = std::filesystem;
using namespace std::chrono_literals;

using testing::Eventually;
using testing::TempDir;

LocalClusterOptions Options(const TempDir& dir) {
  LocalClusterOptions o;
  o.node_names = {"n1", "n2", "n3"};
  o.nodes_dir = dir.path() + "/nodes";
  o.force_loopback = true;
  o.state_dir = dir.path() + "/state";
  return o;
}

TEST(LocalClusterLoopbackTest, HostsShareLoopbackWithDistinctStablePorts) {
  TempDir dir;
  auto cluster = CreateLocalCluster(Options(dir));
  ASSERT_TRUE(cluster.ok()) << cluster.error();
  EXPECT_TRUE(ValidateTag((*cluster)->Tag()).ok());
  std::set<int> ports;
  for (Host* h : (*cluster)->Hosts()) {
    EXPECT_EQ(h->Address(), "127.0.0.1");
    EXPECT_FALSE(h->HasOwnNetwork());
    int port = h->ServicePort(6379);
    EXPECT_GT(port, 0);
    EXPECT_EQ(h->ServicePort(6379), port);  // a restarted server gets the same port
    EXPECT_TRUE(ports.insert(port).second);
    EXPECT_TRUE(ports.insert(h->ServicePort(26379)).second);
    EXPECT_TRUE(fs::is_directory(dir.path() + "/nodes/" + h->Name()));
  }
  EXPECT_EQ((*cluster)->FindHost("n2")->Name(), "n2");
  EXPECT_EQ((*cluster)->FindHost("n9"), nullptr);
}

std::set<int> ServicePorts(Cluster& cluster) {
  std::set<int> ports;
  for (Host* h : cluster.Hosts()) ports.insert(h->ServicePort(6379));
  return ports;
}

TEST(LocalClusterLoopbackTest, TeardownReturnsPortsSoClustersOneAfterAnotherGetThem) {
  // A pool of exactly three ports: a cluster of three takes all of them.
  constexpr int kLow = 29990, kHigh = 29993;
  for (int port = kLow; port < kHigh; ++port) {
    LoopbackPortPool probe(port, port + 1, 1);
    if (probe.Lease("probe") == 0) GTEST_SKIP() << "port " << port << " is taken on this machine";
  }
  auto pool = std::make_shared<LoopbackPortPool>(kLow, kHigh, 1);
  const std::set<int> all = {29990, 29991, 29992};
  for (int round = 0; round < 2; ++round) {
    TempDir dir;
    auto o = Options(dir);
    o.port_pool = pool;
    auto first = CreateLocalCluster(o);
    ASSERT_TRUE(first.ok()) << first.error();
    EXPECT_EQ(ServicePorts(**first), all) << "round " << round;
    EXPECT_EQ(pool->Leased((*first)->Tag()), all);

    // A second live cluster gets none of the first one's ports.
    TempDir other_dir;
    auto other = Options(other_dir);
    other.port_pool = pool;
    auto second = CreateLocalCluster(other);
    ASSERT_TRUE(second.ok()) << second.error();
    EXPECT_EQ((*second)->Hosts()[0]->ServicePort(6379), 0);
    EXPECT_TRUE(pool->Leased((*second)->Tag()).empty());

    ASSERT_TRUE((*first)->Teardown().ok());
    EXPECT_TRUE(pool->Leased((*first)->Tag()).empty());
    // Once the first is gone, its ports are free again, for the second too.
    EXPECT_NE((*second)->Hosts()[0]->ServicePort(6379), 0);
    second->reset();  // the destructor tears down and releases as well
    EXPECT_TRUE(pool->Leased().empty());
  }
}

TEST(LocalClusterLoopbackTest, ClustersWithTheirOwnPoolsStillGetPortsOneAfterAnother) {
  for (int round = 0; round < 3; ++round) {
    TempDir dir;
    auto cluster = CreateLocalCluster(Options(dir));
    ASSERT_TRUE(cluster.ok()) << cluster.error();
    auto ports = ServicePorts(**cluster);
    EXPECT_EQ(ports.size(), 3u);
    EXPECT_FALSE(ports.contains(0));
    ASSERT_TRUE((*cluster)->Teardown().ok());
  }
}

TEST(LocalClusterLoopbackTest, FileOperationsStayInTheHostsDirectory) {
  TempDir dir;
  auto cluster = CreateLocalCluster(Options(dir));
  ASSERT_TRUE(cluster.ok()) << cluster.error();
  Host* n1 = (*cluster)->FindHost("n1");
  EXPECT_EQ(n1->Directory(), dir.path() + "/nodes/n1");
  EXPECT_EQ(n1->PathOf("redis.conf"), dir.path() + "/nodes/n1/redis.conf");
  ASSERT_TRUE(n1->MakeDirectory("data/aof").ok());
  EXPECT_TRUE(fs::is_directory(dir.path() + "/nodes/n1/data/aof"));
  ASSERT_TRUE(n1->WriteFile("data/x.conf", "port 1\n").ok());
  ASSERT_TRUE(n1->WriteFile("data/x.conf", "port 2\nbind a\n").ok());  // replaces
  auto all = n1->ReadFile("data/x.conf", 1 << 20);
  ASSERT_TRUE(all.ok()) << all.error();
  EXPECT_EQ(*all, "port 2\nbind a\n");
  auto tail = n1->ReadFile("data/x.conf", 7);
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(*tail, "bind a\n");
  EXPECT_FALSE(n1->ReadFile("missing.log", 100).ok());
  // Nothing outside the host's own directory.
  for (const std::string bad : {"/etc/passwd", "../n2/x", "a/../../x", "", "a//b", "./x"}) {
    EXPECT_FALSE(n1->WriteFile(bad, "x").ok()) << bad;
    EXPECT_FALSE(n1->ReadFile(bad, 10).ok()) << bad;
    EXPECT_FALSE(n1->MakeDirectory(bad).ok()) << bad;
  }
  EXPECT_FALSE(fs::exists(dir.path() + "/nodes/n2/x"));
}

TEST(LocalClusterLoopbackTest, SpawnEnvironmentReachesEverySpawnOnThatHostOnly) {
  TempDir dir;
  auto cluster = CreateLocalCluster(Options(dir));
  ASSERT_TRUE(cluster.ok()) << cluster.error();
  Host* n1 = (*cluster)->FindHost("n1");
  Host* n2 = (*cluster)->FindHost("n2");
  EXPECT_FALSE(n1->SetSpawnEnv("NOEQUALS").ok());
  ASSERT_TRUE(n1->SetSpawnEnv("LOCKSMITH_A=old").ok());
  ASSERT_TRUE(n1->SetSpawnEnv("LOCKSMITH_A=1").ok());  // replaces by name
  ASSERT_TRUE(n1->SetSpawnEnv("LOCKSMITH_B=host").ok());
  EXPECT_EQ(n1->SpawnEnv(), (std::vector<std::string>{"LOCKSMITH_A=1", "LOCKSMITH_B=host"}));
  auto run_env = [](Host* h, const std::vector<std::string>& env) -> std::string {
    auto pid =
        h->Spawn({{"sh", "-c", "env | grep ^LOCKSMITH_ | sort"}, env, h->PathOf("env.log"), ""});
    if (!pid.ok()) return "spawn failed: " + pid.error();
    if (!Eventually([&] { return !h->Alive(*pid); }, "env exits")) return "did not exit";
    auto out = h->ReadFile("env.log", 4096);
    return out.ok() ? *out : out.error();
  };
  // The spec's own entry wins over the host's.
  EXPECT_EQ(run_env(n1, {"LOCKSMITH_B=spec"}), "LOCKSMITH_A=1\nLOCKSMITH_B=spec\n");
  EXPECT_EQ(run_env(n2, {}), "");
}

TEST(LocalClusterLoopbackTest, RejectsBadOptions) {
  TempDir dir;
  auto o = Options(dir);
  o.node_names = {"n1", "n1"};
  EXPECT_FALSE(CreateLocalCluster(o).ok());
  o.node_names = {"bad/name"};
  EXPECT_FALSE(CreateLocalCluster(o).ok());
  o.node_names = {};
  EXPECT_FALSE(CreateLocalCluster(o).ok());
  o.node_names = std::vector<std::string>(14, "");
  for (int i = 0; i < 14; ++i) o.node_names[i] = "n" + std::to_string(i);
  EXPECT_FALSE(CreateLocalCluster(o).ok());
  o = Options(dir);
  o.tag = "BAD";
  EXPECT_FALSE(CreateLocalCluster(o).ok());
}

TEST(LocalClusterLoopbackTest, SpawnsAreRecordedAndTeardownKillsThem) {
  TempDir dir;
  auto o = Options(dir);
  o.tag = "test01";
  auto created = CreateLocalCluster(o);
  ASSERT_TRUE(created.ok()) << created.error();
  auto& cluster = *created;
  RunRegistry registry(o.state_dir);
  std::vector<int> pids;
  for (Host* h : cluster->Hosts()) {
    auto pid = h->Spawn({{"sleep", "1000"}, {}, "", ""});
    ASSERT_TRUE(pid.ok()) << pid.error();
    pids.push_back(*pid);
  }
  // Hosts refuse each other's pids.
  EXPECT_FALSE(cluster->FindHost("n2")->Kill(pids[0]).ok());
  // Firewall tools would hit the controller's own network here.
  auto exec = cluster->FindHost("n1")->Exec({"iptables", "-L"}, 1s);
  ASSERT_FALSE(exec.ok());
  EXPECT_NE(exec.error().find("loopback"), std::string::npos);
  auto echo = cluster->FindHost("n1")->Exec({"echo", "hi"}, 5s);
  ASSERT_TRUE(echo.ok()) << echo.error();
  EXPECT_EQ(echo->output, "hi\n");

  auto listing = registry.List();
  ASSERT_EQ(listing.records.size(), 1u);
  EXPECT_EQ(listing.records[0].tag, "test01");
  EXPECT_EQ(listing.records[0].slice, -1);
  ASSERT_EQ(listing.records[0].processes.size(), 3u);
  EXPECT_EQ(listing.records[0].processes[0].pid, pids[0]);

  ASSERT_TRUE(cluster->Teardown().ok());
  for (int pid : pids) EXPECT_FALSE(ReadProcStat(pid).has_value());
  EXPECT_TRUE(registry.List().records.empty());
  EXPECT_TRUE(cluster->Teardown().ok());  // idempotent
  EXPECT_FALSE(cluster->FindHost("n1")->Spawn({{"sleep", "1000"}, {}, "", ""}).ok());
}

// `sleep 1000` started outside any supervisor (as if by a dead controller);
// killed and reaped when the test ends, whatever happened.
class Sleeper {
 public:
  Sleeper() {
    pid_ = fork();
    if (pid_ == 0) {
      int null = open("/dev/null", O_RDWR);  // never hold the test runner's pipes
      dup2(null, 1);
      dup2(null, 2);
      execlp("sleep", "sleep", "1000", static_cast<char*>(nullptr));
      _exit(127);
    }
  }
  ~Sleeper() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  int pid() const { return pid_; }
  // Asleep in `sleep`: past exec, so its start time is final.
  bool Asleep() const {
    auto st = ReadProcStat(pid_);
    return st.has_value() && st->state == 'S';
  }
  // Waits (bounded) for the exit; success if SIGKILL ended it.
  ::testing::AssertionResult WaitKilled() {
    int status = 0;
    auto exited = Eventually([&] { return waitpid(pid_, &status, WNOHANG) == pid_; },
                             "sleeper " + std::to_string(pid_) + " is killed");
    if (!exited) return exited;  // the destructor kills it
    pid_ = -1;
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "the sleeper ended with status " << status;
  }

 private:
  int pid_;
};

TEST(CleanupLeftoversTest, KillsADeadRunsProcessesOnlyWhenTheStartTimeMatches) {
  TempDir dir;
  RunRegistry registry(dir.path());
  Sleeper victim_proc, bystander_proc;
  int victim = victim_proc.pid();
  int bystander = bystander_proc.pid();
  // Both asleep: neither can still be between fork and exec.
  ASSERT_TRUE(Eventually([&] { return victim_proc.Asleep() && bystander_proc.Asleep(); },
                         "the sleepers go to sleep"));
  auto dead = NewRecordForThisProcess("dead01");
  ASSERT_TRUE(dead.ok());
  dead->controller_start_time += 1;  // the controller is gone; its pid was reused (by us)
  dead->processes = {{victim, ReadProcStat(victim)->start_time, "n1"},
                     // the recorded process is gone and its pid now belongs to someone else
                     {bystander, ReadProcStat(bystander)->start_time + 1, "n2"}};
  auto live = NewRecordForThisProcess("live01");
  ASSERT_TRUE(live.ok());
  live->processes = {{bystander, ReadProcStat(bystander)->start_time, "n1"}};
  ASSERT_TRUE(registry.Save(*dead).ok());
  ASSERT_TRUE(registry.Save(*live).ok());

  std::ostringstream out;
  CleanupReport report = CleanupLeftovers(out, {dir.path(), false});
  // Not clean(): namespaces of runs elsewhere on this machine are
  // unregistered in this private registry, hence reported (and left).
  EXPECT_TRUE(report.failed.empty()) << out.str();
  EXPECT_TRUE(victim_proc.WaitKilled());
  EXPECT_EQ(waitpid(bystander, nullptr, WNOHANG), 0);  // still running
  auto listing = registry.List();
  ASSERT_EQ(listing.records.size(), 1u);
  EXPECT_EQ(listing.records[0].tag, "live01");
  EXPECT_NE(out.str().find("live01: controller pid"), std::string::npos) << out.str();
}


TEST(CleanupLeftoversTest, OnlyTagLeavesOtherDeadRunsAlone) {
  TempDir dir;
  RunRegistry registry(dir.path());
  Sleeper mine_proc, other_proc;
  ASSERT_TRUE(Eventually([&] { return mine_proc.Asleep() && other_proc.Asleep(); },
                         "the sleepers go to sleep"));
  for (auto [tag, pid] : {std::pair{"mine01", mine_proc.pid()}, {"other1", other_proc.pid()}}) {
    auto record = NewRecordForThisProcess(tag);
    ASSERT_TRUE(record.ok());
    record->controller_start_time += 1;  // dead
    record->processes = {{pid, ReadProcStat(pid)->start_time, "n1"}};
    ASSERT_TRUE(registry.Save(*record).ok());
  }
  std::ostringstream out;
  CleanupReport report = CleanupLeftovers(out, {.state_dir = dir.path(), .only_tag = "mine01"});
  EXPECT_TRUE(report.clean()) << out.str();
  EXPECT_TRUE(mine_proc.WaitKilled());
  EXPECT_EQ(waitpid(other_proc.pid(), nullptr, WNOHANG), 0);  // still running
  auto listing = registry.List();
  ASSERT_EQ(listing.records.size(), 1u);
  EXPECT_EQ(listing.records[0].tag, "other1");
}

TEST(CleanupLeftoversTest, AnUnreadableRecordIsLeftAndReported) {
  TempDir dir;
  RunRegistry registry(dir.path());
  ASSERT_TRUE(registry.Acquire().ok());  // creates runs/
  const std::string bad = dir.path() + "/runs/bad001.json";
  { std::ofstream(bad) << "{ not json"; }
  std::ostringstream out;
  // Only this tag: other runs' namespaces on this machine are unregistered
  // in this private registry and would be reported too.
  CleanupReport report = CleanupLeftovers(out, {.state_dir = dir.path(), .only_tag = "bad001"});
  ASSERT_EQ(report.left.size(), 1u) << out.str();
  EXPECT_NE(report.left[0].find("bad001.json"), std::string::npos) << report.left[0];
  EXPECT_TRUE(report.failed.empty());
  EXPECT_TRUE(fs::exists(bad));
  // Not this tag's business.
  EXPECT_TRUE(CleanupLeftovers(out, {.state_dir = dir.path(), .only_tag = "abc123"}).clean());
}

}  // namespace
}  // namespace locksmith
