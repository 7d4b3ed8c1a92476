// LocalCluster with real namespaces, bridge and veths (root only): hosts can
// reach each other and the controller can reach them, two runs do not
// collide, Teardown leaves nothing, and CleanupLeftovers removes what a
// SIGKILLed controller left while leaving a live run alone.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <thread>

#include "backends/redis_admin.h"
#include "backends/redis_service.h"
#include "base/testing/temp_dir.h"
#include "cluster/cleanup.h"
#include "cluster/local_cluster.h"
#include "cluster/net_plan.h"
#include "cluster/net_setup.h"
#include "cluster/proc_info.h"
#include "cluster/run_registry.h"

namespace locksmith {
namespace {
namespace fs = std::filesystem;
using namespace std::chrono_literals;

#define SKIP_UNLESS_ROOT() \
  if (geteuid() != 0) GTEST_SKIP() << "needs root for network namespaces, bridge and veths"

using testing::TempDir;

LocalClusterOptions Options(const TempDir& dir, std::vector<std::string> nodes) {
  LocalClusterOptions o;
  o.node_names = std::move(nodes);
  o.nodes_dir = dir.path() + "/nodes";
  return o;
}

std::unique_ptr<LocalCluster> Create(const LocalClusterOptions& o) {
  auto c = CreateLocalCluster(o);
  EXPECT_TRUE(c.ok()) << c.error();
  if (!c.ok()) return nullptr;
  return std::unique_ptr<LocalCluster>(static_cast<LocalCluster*>(c->release()));
}

// Everything of `tag` still in the kernel or the registry, for assertions.
std::vector<std::string> Remains(const std::string& tag) {
  std::vector<std::string> left;
  for (const auto& ns : ListNetns()) {
    if (TagFromNetnsName(ns) == tag) left.push_back("netns " + ns);
  }
  for (const auto& l : ListLinks()) {
    if (TagFromLinkName(l) == tag) left.push_back("link " + l);
  }
  if (fs::exists(RunRegistry::DefaultDir() + "/runs/" + tag + ".json")) left.push_back("record");
  return left;
}

constexpr char kRedisPassword[] = "locksmith-test-pw";

// A redis-server on every host of `cluster`, started as a run starts them:
// RedisService spawns each through its host (the cluster's
// ProcessSupervisor) and waits until it answers PING through the bridge.
std::unique_ptr<RedisService> StartRedis(Cluster& cluster) {
  RedisServiceOptions o;
  o.nodes = static_cast<int>(cluster.Hosts().size());
  o.password = kRedisPassword;
  auto service = std::make_unique<RedisService>(cluster, o);
  const Status started = service->Start();
  EXPECT_TRUE(started.ok()) << started.error();
  return service;
}

// StartRedis's server on `host` answers the controller.
bool RedisAnswers(Host* host) {
  return RedisPing({host->Address(), static_cast<uint16_t>(host->ServicePort(6379)),
                    kRedisPassword},
                   2000ms)
      .ok();
}

std::string ExecOutput(Host* host, const std::vector<std::string>& argv) {
  auto r = host->Exec(argv, 5s);
  if (!r.ok()) return "error: " + r.error();
  std::string out = r->output;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// What redis-cli on `from` gets for PING to StartRedis's server on `to`
// ("PONG" when it answers within 2 s).
std::string RedisCliPing(Host* from, Host* to) {
  return ExecOutput(from, {"timeout", "2", "redis-cli", "-h", to->Address(), "-p",
                           std::to_string(to->ServicePort(6379)), "-a", kRedisPassword,
                           "--no-auth-warning", "ping"});
}

TEST(LocalClusterIntegrationTest, ThreeNodesReachEachOtherAndTeardownLeavesNothing) {
  SKIP_UNLESS_ROOT();
  TempDir dir;
  auto cluster = Create(Options(dir, {"n1", "n2", "n3"}));
  ASSERT_NE(cluster, nullptr);
  const std::string tag = cluster->Tag();
  std::vector<int> sleepers;
  for (Host* h : cluster->Hosts()) {
    auto* host = static_cast<LocalHost*>(h);
    EXPECT_TRUE(host->HasOwnNetwork());
    EXPECT_EQ(host->Address().rfind("198.18.0.", 0), 0u);
    EXPECT_EQ(host->ServicePort(6379), 6379);
    auto pid = host->Spawn({{"sleep", "1000"}, {}, host->Directory() + "/sleep.log", ""});
    ASSERT_TRUE(pid.ok()) << pid.error();
    // The pid we hold is the program itself, inside the host's namespace.
    auto ns = NetnsIdOf(NetnsPath(host->NetnsName()));
    ASSERT_TRUE(ns.ok()) << ns.error();
    auto in_ns = PidsInNetns(*ns);
    EXPECT_NE(std::find(in_ns.begin(), in_ns.end(), *pid), in_ns.end());
    EXPECT_EQ(*NetnsIdOf("/proc/" + std::to_string(*pid) + "/ns/net"), *ns);
    sleepers.push_back(*pid);
  }
  // The controller reaches every node through the bridge (Start waits for
  // each to answer there).
  auto redis = StartRedis(*cluster);
  for (Host* h : cluster->Hosts()) EXPECT_TRUE(RedisAnswers(h)) << h->Name();
  Host* n1 = cluster->FindHost("n1");
  Host* n3 = cluster->FindHost("n3");
  // Node to node over the bridge.
  EXPECT_EQ(RedisCliPing(n1, n3), "PONG");
  EXPECT_EQ(RedisCliPing(n3, n1), "PONG");
  // Loopback is up inside a node.
  EXPECT_NE(ExecOutput(n1, {"ip", "-o", "link", "show", "lo"}).find(",UP"), std::string::npos);
  // The namespace has only its own links (lo and the veth end).
  std::string links = ExecOutput(n1, {"ip", "-o", "link", "show"});
  EXPECT_NE(links.find(NodeVethName(tag, 0)), std::string::npos) << links;
  EXPECT_EQ(links.find("eth0"), std::string::npos) << links;
  // iptables works inside the namespace and leaves the controller's alone.
  auto ipt = n1->Exec({"iptables", "-A", "INPUT", "-s", n3->Address(), "-j", "DROP"}, 10s);
  ASSERT_TRUE(ipt.ok()) << ipt.error();
  EXPECT_EQ(ipt->exit_code, 0) << ipt->output;
  EXPECT_NE(RedisCliPing(n3, n1), "PONG");
  EXPECT_TRUE(RedisAnswers(n1));  // the controller is not partitioned
  // Signal/Kill refuse what the host did not start.
  EXPECT_FALSE(n1->Signal(sleepers[1], SIGSTOP).ok());  // n2's sleeper
  EXPECT_FALSE(n1->Kill(getpid()).ok());

  const RunRecord record = cluster->Record();
  EXPECT_EQ(record.processes.size(), 6u);  // 3 sleepers, 3 redis-servers
  ASSERT_TRUE(cluster->Teardown().ok());
  EXPECT_TRUE(cluster->Teardown().ok());
  EXPECT_EQ(Remains(tag), std::vector<std::string>{});
  for (const auto& p : record.processes) {
    EXPECT_FALSE(IsSameProcessAlive(p.pid, p.start_time)) << p.pid;
  }
}

TEST(LocalClusterIntegrationTest, ConcurrentTeardownsFromSeveralThreads) {
  SKIP_UNLESS_ROOT();
  TempDir dir;
  auto cluster = Create(Options(dir, {"a", "b"}));
  ASSERT_NE(cluster, nullptr);
  for (Host* h : cluster->Hosts()) ASSERT_TRUE(h->Spawn({{"sleep", "1000"}, {}, "", ""}).ok());
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      if (!cluster->Teardown().ok()) ++failures;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(Remains(cluster->Tag()), std::vector<std::string>{});
}

TEST(LocalClusterIntegrationTest, TwoClustersAtOnceDoNotCollide) {
  SKIP_UNLESS_ROOT();
  TempDir dir_a, dir_b;
  auto a = Create(Options(dir_a, {"n1", "n2"}));
  auto b = Create(Options(dir_b, {"n1", "n2"}));
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a->Tag(), b->Tag());
  EXPECT_NE(a->Record().slice, b->Record().slice);
  EXPECT_NE(a->ControllerAddress(), b->ControllerAddress());
  auto redis_a = StartRedis(*a);
  auto redis_b = StartRedis(*b);
  Host* a1 = a->FindHost("n1");
  Host* b1 = b->FindHost("n1");
  EXPECT_NE(a1->Address(), b1->Address());
  // The runs' networks are separate: a node of one cannot reach the other.
  EXPECT_NE(RedisCliPing(a1, b1), "PONG");
  ASSERT_TRUE(a->Teardown().ok());
  EXPECT_EQ(Remains(a->Tag()), std::vector<std::string>{});
  EXPECT_TRUE(RedisAnswers(b1));  // b unharmed by a's teardown
  ASSERT_TRUE(b->Teardown().ok());
  EXPECT_EQ(Remains(b->Tag()), std::vector<std::string>{});
}

TEST(LocalClusterIntegrationTest, RefusesATagWhoseObjectsExistAndLeavesThemAlone) {
  SKIP_UNLESS_ROOT();
  TempDir dir;
  // A namespace with our naming but no record here (another registry's run).
  std::string tag = RandomTag();
  ASSERT_TRUE(RunIp({"netns", "add", NetnsName(tag, "n2")}).ok());
  auto o = Options(dir, {"n1", "n2"});
  o.tag = tag;
  auto c = CreateLocalCluster(o);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().find("already exists"), std::string::npos) << c.error();
  EXPECT_EQ(Remains(tag), std::vector<std::string>{"netns " + NetnsName(tag, "n2")});
  // Cleanup reports it but does not remove what no record claims...
  std::ostringstream out;
  CleanupReport report = CleanupLeftovers(out, {.only_tag = tag});
  EXPECT_EQ(report.left.size(), 1u) << out.str();
  EXPECT_TRUE(report.failed.empty()) << out.str();
  EXPECT_TRUE(NetnsExists(NetnsName(tag, "n2"))) << out.str();
  // ...unless asked to.
  EXPECT_TRUE(CleanupLeftovers(out, {.remove_unregistered = true, .only_tag = tag}).clean())
      << out.str();
  EXPECT_EQ(Remains(tag), std::vector<std::string>{});
}

// Forks a controller that creates a cluster, starts a sleeper on each host
// and a wrapper-with-child on n2, reports its tag, and waits to be killed.
std::string StartDoomedController(const TempDir& dir, bool die_with_controller, pid_t* pid) {
  int fds[2];
  if (pipe(fds) != 0) return "";
  *pid = fork();
  if (*pid == 0) {
    close(fds[0]);
    auto o = Options(dir, {"n1", "n2", "n3"});
    o.die_with_controller = die_with_controller;
    auto c = CreateLocalCluster(o);
    if (!c.ok()) _exit(1);
    for (Host* h : (*c)->Hosts()) {
      if (!h->Spawn({{"sleep", "1000"}, {}, "", ""}).ok()) _exit(1);
    }
    if (!(*c)->FindHost("n2")->Spawn({{"sh", "-c", "sleep 1000 & wait"}, {}, "", ""}).ok()) {
      _exit(1);
    }
    std::string tag = (*c)->Tag() + "\n";
    if (write(fds[1], tag.data(), tag.size()) < 0) _exit(1);
    while (true) pause();
  }
  close(fds[1]);
  char buf[16] = {};
  ssize_t n = read(fds[0], buf, sizeof(buf) - 1);
  close(fds[0]);
  return n == kTagLength + 1 ? std::string(buf, kTagLength) : "";
}

void ReapOrphans() {
  while (waitpid(-1, nullptr, WNOHANG) > 0) {
  }
}

class CleanupAfterCrashTest : public ::testing::TestWithParam<bool> {};

TEST_P(CleanupAfterCrashTest, RemovesADeadRunAndLeavesALiveOne) {
  SKIP_UNLESS_ROOT();
  // Adopt the dead controller's orphans so this test reaps them itself
  // instead of relying on pid 1 (slow to reap on this machine).
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  TempDir dir, live_dir;
  pid_t controller = 0;
  // Fork before any thread exists in this process (the child builds a cluster).
  std::string tag = StartDoomedController(dir, GetParam(), &controller);
  ASSERT_EQ(tag.size(), static_cast<size_t>(kTagLength)) << "the doomed controller failed";
  RunRecord dead_record;
  for (const auto& r : RunRegistry(RunRegistry::DefaultDir()).List().records) {
    if (r.tag == tag) dead_record = r;
  }
  ASSERT_EQ(dead_record.processes.size(), 4u);
  // 3 sleepers, the wrapper and its child; the wrapper forks its child on
  // its own schedule, so wait for it (bounded) rather than sample once.
  std::vector<std::pair<int, uint64_t>> in_namespaces;
  for (int attempt = 0; attempt < 100 && in_namespaces.size() < 5; ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    in_namespaces.clear();
    for (const auto& ns : dead_record.netns) {
      for (int pid : PidsInNetns(*NetnsIdOf(NetnsPath(ns)))) {
        if (auto st = ReadProcStat(pid)) in_namespaces.emplace_back(pid, st->start_time);
      }
    }
  }
  EXPECT_EQ(in_namespaces.size(), 5u);
  ASSERT_EQ(kill(controller, SIGKILL), 0);
  ASSERT_EQ(waitpid(controller, nullptr, 0), controller);
  EXPECT_FALSE(Remains(tag).empty());

  auto live = Create(Options(live_dir, {"l1"}));
  ASSERT_NE(live, nullptr);
  auto live_pid = live->FindHost("l1")->Spawn({{"sleep", "1000"}, {}, "", ""});
  ASSERT_TRUE(live_pid.ok());

  std::ostringstream out;
  CleanupReport report = CleanupLeftovers(out);
  std::cout << out.str();
  EXPECT_TRUE(report.failed.empty()) << out.str();
  ReapOrphans();
  EXPECT_EQ(Remains(tag), std::vector<std::string>{});
  for (const auto& p : dead_record.processes) {
    EXPECT_FALSE(IsSameProcessAlive(p.pid, p.start_time)) << p.pid;
  }
  // n2's wrapper had a child the record never saw; the sweep by namespace
  // found it.
  for (const auto& [pid, start] : in_namespaces) {
    EXPECT_FALSE(IsSameProcessAlive(pid, start)) << pid;
  }

  // The live run is untouched.
  EXPECT_TRUE(live->FindHost("l1")->Alive(*live_pid));
  EXPECT_EQ(Remains(live->Tag()).size(), 4u);  // netns, veth, bridge, record
  EXPECT_NE(out.str().find("run " + live->Tag() + ": controller pid"), std::string::npos);
  ASSERT_TRUE(live->Teardown().ok());
  EXPECT_EQ(Remains(live->Tag()), std::vector<std::string>{});
  ReapOrphans();
}

INSTANTIATE_TEST_SUITE_P(DieWithController, CleanupAfterCrashTest, ::testing::Bool());

// A SIGKILLed run whose record is gone (deleted by hand, or a lost /run):
// only its names tie the objects to it. Cleanup must say so and leave them,
// then remove everything, processes inside the namespaces included, when
// asked with remove_unregistered.
TEST(LocalClusterIntegrationTest, RemovesAnUnregisteredDeadRunOnlyWhenAsked) {
  SKIP_UNLESS_ROOT();
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  TempDir dir;
  pid_t controller = 0;
  // die_with_controller: the servers die with it, the wrapper's child does
  // not, so a process is left inside a namespace for cleanup to find.
  std::string tag = StartDoomedController(dir, /*die_with_controller=*/true, &controller);
  ASSERT_EQ(tag.size(), static_cast<size_t>(kTagLength)) << "the doomed controller failed";
  // Unregistered objects hold an address slice no record protects: the next
  // run on this machine would reuse it and collide. Remove them (and the
  // controller, if an assertion returned before killing it) whatever the
  // test's outcome.
  struct RemoveAtEnd {
    std::string tag;
    pid_t& controller;
    ~RemoveAtEnd() {
      if (controller > 0 && kill(controller, SIGKILL) == 0) waitpid(controller, nullptr, 0);
      std::ostringstream ignored;
      (void)CleanupLeftovers(ignored, {.remove_unregistered = true, .only_tag = tag});
    }
  } remove_at_end{tag, controller};
  auto in_namespaces = [&] {
    std::vector<std::pair<int, uint64_t>> found;
    for (const auto& ns : ListNetns()) {
      if (TagFromNetnsName(ns) != tag) continue;
      for (int pid : PidsInNetns(*NetnsIdOf(NetnsPath(ns)))) {
        if (auto st = ReadProcStat(pid); st && st->state != 'Z') {
          found.emplace_back(pid, st->start_time);
        }
      }
    }
    return found;
  };
  // 3 sleepers, the wrapper and its child: the wrapper forks on its own
  // schedule, so wait (bounded) until its child exists.
  for (int attempt = 0; attempt < 100 && in_namespaces().size() < 5; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(in_namespaces().size(), 5u);
  ASSERT_EQ(kill(controller, SIGKILL), 0);
  ASSERT_EQ(waitpid(controller, nullptr, 0), controller);
  controller = 0;
  ASSERT_TRUE(RunRegistry(RunRegistry::DefaultDir()).Remove(tag).ok());

  // The servers die with their controller; the wrapper's child does not.
  std::vector<std::pair<int, uint64_t>> stranded;
  for (int attempt = 0; attempt < 100; ++attempt) {
    stranded = in_namespaces();
    if (stranded.size() == 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(stranded.size(), 1u) << "not just the wrapper's child left: the test proves nothing";
  const std::vector<std::string> before = Remains(tag);
  // 3 namespaces, 3 host-side veths, the bridge; no record.
  ASSERT_EQ(before.size(), 7u);

  std::ostringstream out;
  CleanupReport report = CleanupLeftovers(out, {.only_tag = tag});
  EXPECT_EQ(report.left.size(), 1u) << out.str();
  EXPECT_TRUE(report.failed.empty()) << out.str();
  EXPECT_NE(out.str().find("--remove-unregistered"), std::string::npos) << out.str();
  EXPECT_EQ(Remains(tag), before);
  for (const auto& [pid, start] : stranded) EXPECT_TRUE(IsSameProcessAlive(pid, start)) << pid;

  report = CleanupLeftovers(out, {.remove_unregistered = true, .only_tag = tag});
  EXPECT_TRUE(report.clean()) << out.str();
  ReapOrphans();
  EXPECT_EQ(Remains(tag), std::vector<std::string>{});
  for (const auto& [pid, start] : stranded) EXPECT_FALSE(IsSameProcessAlive(pid, start)) << pid;
}

}  // namespace
}  // namespace locksmith
