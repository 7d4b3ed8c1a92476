// The fakes keep the Host contract the real hosts keep (so a test that
// passes on them means something): own pids only, paths inside the host's
// directory, the spec's environment over the host's, and failures on demand.
#include "cluster/testing/fake_host.h"

#include <gtest/gtest.h>
#include <signal.h>

#include "cluster/testing/fake_cluster.h"

namespace locksmith::testing {
namespace {

TEST(FakeHostTest, KeepsTheHostContract) {
  FakeCluster cluster({"n1", "n2"});
  FakeHost& n1 = *cluster.Fake("n1");
  FakeHost& n2 = *cluster.Fake("n2");
  ASSERT_TRUE(n1.SetSpawnEnv("A=host").ok());
  ASSERT_TRUE(n1.SetSpawnEnv("B=host").ok());
  auto pid = n1.Spawn({{"redis-server"}, {"B=spec"}, "", ""});
  ASSERT_TRUE(pid.ok());
  EXPECT_EQ(n1.spawns().at(0).spec.env, (std::vector<std::string>{"A=host", "B=host", "B=spec"}));
  EXPECT_TRUE(n1.Alive(*pid));
  EXPECT_FALSE(n2.Kill(*pid).ok());  // not n2's
  EXPECT_FALSE(n2.Alive(*pid));
  ASSERT_TRUE(n1.Signal(*pid, SIGSTOP).ok());
  EXPECT_TRUE(n1.stopped(*pid));
  ASSERT_TRUE(n1.Kill(*pid).ok());
  EXPECT_FALSE(n1.Alive(*pid));
  EXPECT_FALSE(n1.Signal(*pid, SIGCONT).ok());  // exited

  EXPECT_FALSE(n1.WriteFile("../n2/x", "x").ok());
  ASSERT_TRUE(n1.WriteFile("log", "one\ntwo\n").ok());
  EXPECT_EQ(*n1.ReadFile("log", 4), "two\n");
  EXPECT_EQ(n1.PathOf("log"), "/fake-hosts/n1/log");
}

TEST(FakeHostTest, FailsOnDemandAndTeardownEndsEverything) {
  FakeCluster cluster({"n1"});
  FakeHost& n1 = *cluster.Fake("n1");
  n1.Fail(FakeHost::Op::kSpawn, "boom", 1);
  auto failed = n1.Spawn({{"x"}, {}, "", ""});
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.error().find("boom"), std::string::npos);
  auto pid = n1.Spawn({{"x"}, {}, "", ""});  // only once
  ASSERT_TRUE(pid.ok());
  n1.Fail(FakeHost::Op::kExec, "no iptables");
  EXPECT_FALSE(n1.Exec({"iptables"}, std::chrono::seconds(1)).ok());
  EXPECT_FALSE(n1.Exec({"iptables"}, std::chrono::seconds(1)).ok());  // every time
  n1.ClearFailures();
  EXPECT_TRUE(n1.Exec({"iptables", "-L"}, std::chrono::seconds(1)).ok());
  EXPECT_EQ(n1.execs().size(), 1u);

  cluster.FailTeardown("veth stuck");
  EXPECT_FALSE(cluster.Teardown().ok());
  EXPECT_FALSE(n1.Alive(*pid));
  EXPECT_FALSE(n1.Spawn({{"x"}, {}, "", ""}).ok());
  EXPECT_EQ(cluster.teardowns(), 1);
}

}  // namespace
}  // namespace locksmith::testing
