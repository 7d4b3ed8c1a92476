#include "nemesis/kill_nemesis.h"

#include <gtest/gtest.h>

#include <map>

#include "backends/redis_service.h"
#include "backends/testing/fake_lock_service.h"
#include "backends/testing/pong_server.h"
#include "cluster/testing/fake_cluster.h"
#include "history/testing/memory_recorder.h"
#include "nemesis/nemesis_registry.h"
#include "nemesis/nemesis_runner.h"

namespace locksmith {
namespace {

using testing::MemoryRecorder;

// Records what the nemesis asked for; "n9" does not exist; starting a node
// in `broken` fails.
class FakeKillable : public Killable {
 public:
  Status KillNode(const std::string& node) override {
    if (node == "n9") return Error{"no redis node n9"};
    up[node] = false;
    return OkStatus();
  }
  Status StartNode(const std::string& node) override {
    if (broken.contains(node)) return Error{node + ": cannot start redis-server: disk full"};
    if (up[node]) return Error{node + " is already running"};
    up[node] = true;
    ++starts;
    return OkStatus();
  }
  bool IsUp(const std::string& node) override { return up[node]; }
  std::map<std::string, bool> up;
  int starts = 0;
  std::set<std::string> broken;
};

// Each node's process on a fake host: a kill ends it, a start spawns a new
// one (or, with `same_pid`, claims the old pid again, as a service that
// lost track would).
class ProcessTable : public HasNodeProcesses {
 public:
  explicit ProcessTable(FakeKillable& service) : service_(service) {}
  std::optional<NodeProcess> ProcessOf(const std::string& node) override {
    if (!service_.up[node]) return std::nullopt;
    auto& pid = pids_[node];
    if (pid == 0 || (!same_pid && !host.Alive(pid))) pid = *host.Spawn({{"redis-server"}});
    return NodeProcess{&host, pid};
  }
  void Killed(const std::string& node) { (void)host.Kill(pids_[node]); }

  testing::FakeHost host{"h1"};
  bool same_pid = false;

 private:
  FakeKillable& service_;
  std::map<std::string, int> pids_;
};

// A restart is observed when the node came back with a new pid.
TEST(KillNemesisTest, ARestartIsObservedByANewPid) {
  FakeKillable service;
  service.up["n1"] = true;
  ProcessTable processes(service);
  const int first = processes.ProcessOf("n1")->pid;
  KillNemesis nemesis(service, {}, 0, std::chrono::milliseconds(0), &processes);
  FaultResult killed = nemesis.Invoke({"kill", {{"node", "n1"}}});
  ASSERT_TRUE(killed.ok) << killed.error;
  EXPECT_FALSE(killed.observed.has_value()) << "the restart tells";
  EXPECT_EQ(killed.value["checks"]["n1"]["killed_pid"], first);
  processes.Killed("n1");
  FaultResult back = nemesis.Invoke({"restart", nullptr});
  ASSERT_TRUE(back.ok) << back.error;
  ASSERT_TRUE(back.observed.has_value());
  EXPECT_TRUE(*back.observed) << back.value.dump();
  EXPECT_NE(back.value["checks"]["n1"]["pid"], first);

  // A node that answers with the pid it had before did not come back anew.
  processes.same_pid = true;
  ASSERT_TRUE(nemesis.Invoke({"kill", {{"node", "n1"}}}).ok);
  FaultResult stale = nemesis.Invoke({"restart", nullptr});
  ASSERT_TRUE(stale.observed.has_value());
  EXPECT_FALSE(*stale.observed) << stale.value.dump();
}

TEST(KillOptionsTest, TheRestartDelayIsParsedValidatedAndShapesTheWindow) {
  OptionsOf<KillOptions> options;
  ASSERT_TRUE(options.set().Validate().ok());
  EXPECT_EQ(options.set().ToJson(),
            nlohmann::json(
                {{"kill_target", "one"}, {"restart_delay_ms", 100}, {"delayed_restart", false},
                 {"power_loss", false}}));
  ASSERT_TRUE(options.set().Merge({{"restart_delay_ms", -1}}).ok());
  EXPECT_EQ(options.set().Validate().error(), "--restart-delay must be 0 to 3600000");
  ASSERT_TRUE(options.set().Merge({{"restart_delay_ms", 250}, {"kill_target", "majority"}}).ok());
  ASSERT_TRUE(options.set().Validate().ok());
  // Through the registry: the window uses the family's own delay and
  // target, and ends before the family's next window.
  auto window = (*FindNemesis("kill"))->window(options);
  auto ops = window(1000, 5000);
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0].op.f, "kill");
  EXPECT_EQ(ops[0].op.value, nlohmann::json({{"target", "majority"}}));
  EXPECT_EQ(ops[1].op.f, "restart");
  EXPECT_TRUE(ops[0].mark.begins);
  EXPECT_FALSE(ops[1].mark.begins);
  EXPECT_EQ(ops[1].at_ms, 1250);
  EXPECT_EQ(window(4900, 5000)[1].at_ms, 4999);
  ASSERT_TRUE(options.set().Merge({{"kill_target", "n1,,n2"}}).ok());
  EXPECT_NE(options.set().Validate().error().find("--kill-target"), std::string::npos);
}

// A service without the Killable capability.
class UnkillableService : public LockService {
 public:
  std::string Backend() const override { return "frozen"; }
  NodeTable Table() const override { return {}; }
  Status Start() override { return OkStatus(); }
  void Stop() override {}
  std::unique_ptr<LockClient> NewClient(boost::asio::any_io_executor, const ClientSlot&) override {
    return nullptr;
  }
};

TEST(KillNemesisTest, TheRegistryRefusesABackendThatCannotKill) {
  OptionsOf<KillOptions> options;
  UnkillableService service;
  ClientFaults client_faults;
  auto made = MakeNemesis({{"kill", &options}}, NemesisContext{service, client_faults});
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.error(), "backend frozen cannot kill nodes");
}

// A killable service whose nodes sit on the hosts `table` names.
class KillableTableService : public testing::FakeLockService, public FakeKillable {
 public:
  NodeTable Table() const override { return table; }
  std::vector<NodeRoleSpec> Roles() const override { return roles; }
  NodeTable table;
  std::vector<NodeRoleSpec> roles = {{kPrimaryRole}, {kReplicaRole}, {"sentinel"}};
};

TEST(KillNemesisTest, PowerLossNeedsTheHostsAndOneServerPerHost) {
  OptionsOf<KillOptions> options;
  KillableTableService service;
  service.table = {{"n1", kPrimaryRole, "h1", "redis-server", "198.18.0.1", 6379},
                   {"s1", "sentinel", "h1", "redis-sentinel", "198.18.0.1", 26379, false},
                   {"n2", kReplicaRole, "h2", "redis-server", "198.18.0.2", 6379}};
  ClientFaults client_faults;
  testing::FakeNet net;
  testing::FakeCluster cluster({"h1", "h2"}, "fake01", &net);
  const NemesisContext context{service, client_faults,
                               1, std::chrono::milliseconds(1000), &cluster, 2};
  EXPECT_EQ(KillUnfit(options, context), "");  // a plain kill is fine
  options.value().power_loss = true;
  EXPECT_EQ(KillUnfit(options, context),
            "power loss needs one server per host (backend fake runs two on h1)");
  service.table.erase(service.table.begin() + 1);
  EXPECT_EQ(KillUnfit(options, context), "");
  const NemesisContext hostless{service, client_faults};
  EXPECT_EQ(KillUnfit(options, hostless), "power loss needs the run's hosts");
  // A role whose writes a power loss cannot reach says so (as etcd's do).
  service.table = {{"n1", "etcd-member", "h1", "etcd", "198.18.0.1", 2379}};
  EXPECT_EQ(KillUnfit(options, context), "");
  service.roles = {{"etcd-member", "etcd's writes (its Go runtime bypasses the C library)"}};
  EXPECT_EQ(KillUnfit(options, context),
            "power loss cannot reach etcd's writes (its Go runtime bypasses the C library)");
}

TEST(KillNemesisTest, ATargetRoleTheBackendLacksIsUnfit) {
  OptionsOf<KillOptions> options;
  KillableTableService service;
  service.table = {{"n1", "zk-peer", "h1", "java", "198.18.0.1", 2181}};
  service.roles = {{"zk-peer"}, {kPrimaryRole}};
  ClientFaults client_faults;
  const NemesisContext context{service, client_faults};
  for (const char* target : {"one", "primary", "role:zk-peer", "n1"}) {
    options.value().target = target;
    EXPECT_EQ(KillUnfit(options, context), "") << target;
  }
  options.value().target = "replicas";
  EXPECT_EQ(KillUnfit(options, context),
            "--kill-target: target replicas: backend fake has no replica nodes (its roles: "
            "zk-peer, primary)");
  options.value().target = "role:sentinel";
  auto made = MakeNemesis({{"kill", &options}}, context);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.error(),
            "--kill-target: target role:sentinel: backend fake has no sentinel nodes (its roles: "
            "zk-peer, primary)");
}

TEST(KillNemesisTest, KillsAndStartsNodes) {
  FakeKillable service;
  KillNemesis nemesis(service);
  EXPECT_TRUE(nemesis.Invoke({"kill", {{"node", "n1"}}}).ok);
  EXPECT_FALSE(service.up["n1"]);
  EXPECT_TRUE(nemesis.Invoke({"restart", {{"node", "n1"}}}).ok);
  EXPECT_TRUE(service.up["n1"]);
}

TEST(KillNemesisTest, ARestartOfANodeAnotherFamilyRestartedSucceedsWithoutAStart) {
  FakeKillable service;
  KillNemesis nemesis(service);
  ASSERT_TRUE(nemesis.Invoke({"kill", {{"node", "n1"}}}).ok);
  service.up["n1"] = true;  // the failover family's heal came first
  EXPECT_TRUE(nemesis.Invoke({"restart", {{"node", "n1"}}}).ok);
  EXPECT_EQ(service.starts, 0);
  EXPECT_TRUE(nemesis.Teardown().empty());
}

TEST(KillNemesisTest, BadOpsFailWithAReason) {
  FakeKillable service;
  KillNemesis nemesis(service);
  auto r = nemesis.Invoke({"kill", nullptr});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("node"), std::string::npos);
  r = nemesis.Invoke({"kill", {{"node", "n9"}}});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("n9"), std::string::npos);
}

TEST(KillNemesisTest, TeardownRestartsWhatIsStillDown) {
  FakeKillable service;
  KillNemesis nemesis(service);
  nemesis.Invoke({"kill", {{"node", "n1"}}});
  nemesis.Invoke({"kill", {{"node", "n2"}}});
  nemesis.Invoke({"restart", {{"node", "n2"}}});
  service.up["n2"] = false;  // a later start must not come from teardown
  EXPECT_TRUE(nemesis.Teardown().empty());
  EXPECT_TRUE(service.up["n1"]);
  EXPECT_FALSE(service.up["n2"]);
}

TEST(KillNemesisTest, TeardownReportsWhatItCouldNotHealAndRetriesItNextTime) {
  FakeKillable service;
  KillNemesis nemesis(service);
  nemesis.Invoke({"kill", {{"node", "n1"}}});
  nemesis.Invoke({"kill", {{"node", "n2"}}});
  service.broken = {"n1"};
  auto failures = nemesis.Teardown();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].f, "restart");
  EXPECT_EQ(failures[0].value, nlohmann::json({{"node", "n1"}}));
  EXPECT_EQ(failures[0].error, "n1: cannot start redis-server: disk full");
  EXPECT_TRUE(service.up["n2"]);
  EXPECT_EQ(HealFailuresJson(failures), nlohmann::json::parse(R"([{"f": "restart",
      "value": {"node": "n1"}, "error": "n1: cannot start redis-server: disk full"}])"));

  service.broken.clear();
  EXPECT_TRUE(nemesis.Teardown().empty());
  EXPECT_TRUE(service.up["n1"]);
}

// The same through a real RedisService whose host cannot spawn the server
// again: FakeHosts record the kill and the failed restart; a PongServer
// answers the readiness probe so no redis-server is needed.
TEST(KillNemesisTest, TeardownReportsARestartTheHostRefused) {
  testing::PongServer pong;
  testing::FakeCluster cluster({"n1"});
  testing::FakeHost& n1 = *cluster.Fake("n1");
  n1.SetPort(6379, pong.port());
  RedisServiceOptions options;
  options.password = "pw";
  RedisService service(cluster, options);
  ASSERT_TRUE(service.Start().ok());
  KillNemesis nemesis(service);
  ASSERT_TRUE(nemesis.Invoke({"kill", {{"node", "n1"}}}).ok);
  EXPECT_EQ(n1.kills(), std::vector<int>{n1.spawns().at(0).pid});

  n1.Fail(testing::FakeHost::Op::kSpawn, "fork: out of memory");
  auto failures = nemesis.Teardown();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].value, nlohmann::json({{"node", "n1"}}));
  EXPECT_NE(failures[0].error.find("fork: out of memory"), std::string::npos) << failures[0].error;
  EXPECT_TRUE(n1.live().empty());

  n1.ClearFailures();
  EXPECT_TRUE(nemesis.Teardown().empty());
  EXPECT_EQ(n1.live().size(), 1u);
}

TEST(CompositeNemesisTest, TeardownHealsEveryPartAndGathersTheirFailures) {
  FakeKillable a, b;
  a.broken = {"n1"};
  b.broken = {"n2"};
  std::vector<std::unique_ptr<Nemesis>> parts;
  parts.push_back(std::make_unique<KillNemesis>(a));
  parts.push_back(std::make_unique<KillNemesis>(b));
  parts[0]->Invoke({"kill", {{"node", "n1"}}});
  parts[1]->Invoke({"kill", {{"node", "n2"}}});
  parts[1]->Invoke({"kill", {{"node", "n3"}}});
  CompositeNemesis composite(std::move(parts));
  auto failures = composite.Teardown();
  ASSERT_EQ(failures.size(), 2u);
  // Last part first, like unwinding.
  EXPECT_EQ(failures[0].value["node"], "n2");
  EXPECT_EQ(failures[1].value["node"], "n1");
  EXPECT_TRUE(b.up["n3"]);
}

TEST(NemesisRunnerTest, RecordsEachFaultAsInvokeThenInfo) {
  FakeKillable service;
  KillNemesis nemesis(service);
  MemoryRecorder recorder;
  std::vector<ScheduledFault> schedule{{0, {"kill", {{"node", "n1"}}}},
                                       {1, {"kill", {{"node", "n9"}}}},
                                       {2, {"restart", {{"node", "n1"}}}}};
  NemesisRunner runner(nemesis, recorder, schedule);
  runner.Start(std::chrono::steady_clock::now());
  // Stop() only interrupts waiting; wait (bounded) until all three ran.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (runner.performed() < 3 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_EQ(runner.performed(), 3);
  runner.Stop();
  History h = recorder.history();
  ASSERT_EQ(h.size(), 6u);
  for (size_t i = 0; i < h.size(); ++i) {
    EXPECT_TRUE(h[i].is_nemesis());
    EXPECT_EQ(h[i].type, i % 2 ? OpType::kInfo : OpType::kInvoke);
  }
  EXPECT_EQ(h[3].error, "no redis node n9");
  EXPECT_EQ(runner.failed(), 1);
  EXPECT_TRUE(service.up["n1"]);
  EXPECT_FALSE(h[1].value.contains("observed")) << "a nemesis that checks nothing says nothing";
}

// A fault's check from outside is recorded in its completion's value.
TEST(NemesisRunnerTest, RecordsWhatTheFaultsCheckObserved) {
  class Checked : public Nemesis {
   public:
    std::vector<std::string> Faults() const override { return {"poke"}; }
    FaultResult Invoke(const FaultOp& op) override {
      FaultResult r{true, nullptr, ""};
      r.observed = op.value.value("works", false);
      return r;
    }
    std::vector<HealFailure> Teardown() override { return {}; }
  } nemesis;
  MemoryRecorder recorder;
  NemesisRunner runner(nemesis, recorder,
                       {{0, {"poke", {{"works", true}}}}, {1, {"poke", {{"works", false}}}}});
  runner.Start(std::chrono::steady_clock::now());
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (runner.performed() < 2 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  runner.Stop();
  History h = recorder.history();
  ASSERT_EQ(h.size(), 4u);
  EXPECT_EQ(h[1].value, nlohmann::json({{"observed", true}}));
  EXPECT_EQ(h[3].value, nlohmann::json({{"observed", false}}));
}

TEST(NemesisRunnerTest, StopInterruptsALongWait) {
  FakeKillable service;
  KillNemesis nemesis(service);
  MemoryRecorder recorder;
  NemesisRunner runner(nemesis, recorder, {{3'600'000, {"kill", {{"node", "n1"}}}}});
  runner.Start(std::chrono::steady_clock::now());
  runner.Stop();
  EXPECT_EQ(runner.performed(), 0);
  EXPECT_TRUE(recorder.history().empty());
}

TEST(NemesisRunnerTest, HealEndsEveryWindowBegunAndRecordsItsEnd) {
  FakeKillable service;
  KillNemesis nemesis(service);
  MemoryRecorder recorder;
  // Window 0 has begun and ended, window 1 has begun (its restart is an
  // hour away), window 2 never began: the heal restarts n2 only.
  NemesisRunner runner(nemesis, recorder,
                       {{0, {"kill", {{"node", "n1"}}}, {0, "kill", true}},
                        {0, {"restart", {{"node", "n1"}}}, {0, "kill", false}},
                        {0, {"kill", {{"node", "n2"}}}, {1, "kill", true}},
                        {3'600'000, {"restart", {{"node", "n2"}}}, {1, "kill", false}},
                        {3'600'000, {"kill", {{"node", "n3"}}}, {2, "kill", true}},
                        {3'600'001, {"restart", {{"node", "n3"}}}, {2, "kill", false}}});
  runner.Start(std::chrono::steady_clock::now());
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (runner.performed() < 3 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_EQ(runner.performed(), 3);
  runner.Heal();
  EXPECT_EQ(runner.performed(), 4);
  EXPECT_TRUE(service.up["n2"]);
  EXPECT_FALSE(service.up.contains("n3"));
  History h = recorder.history();
  ASSERT_EQ(h.size(), 8u);
  EXPECT_EQ(h[6].f, "restart");
  EXPECT_EQ(h[6].value["node"], "n2");
  EXPECT_EQ(h[6].fault, (FaultMark{1, "kill", false}).ToJson());
  EXPECT_EQ(h[0].fault, (FaultMark{0, "kill", true}).ToJson());
}

TEST(KillLookTest, NamesTheNodesAKillHit) {
  EXPECT_EQ(DescribeFaultOp(kKillLook, {"kill", {{"nodes", {"n1"}}, {"target", "one"}}}, "").text,
            "kill n1");
  EXPECT_EQ(DescribeFaultOp(kKillLook, {"kill", {{"nodes", {"n3", "n1"}}}}, "").text, "kill n1 n3");
  EXPECT_EQ(DescribeFaultOp(kKillLook, {"kill", {{"node", "n2"}}}, "").text, "kill n2");
  EXPECT_TRUE(DescribeFaultOp(kKillLook, {"kill", {{"nodes", {"n1"}}}}, "").effective);
}

}  // namespace
}  // namespace locksmith
