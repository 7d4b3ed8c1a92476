#include "backends/server_signals.h"

#include <gtest/gtest.h>

#include "cluster/testing/fake_host.h"

namespace locksmith {
namespace {

TEST(ServerSignalsTest, PauseResumeAndKillFollowTheNodesState) {
  testing::FakeHost host("n1");
  int pid = *host.Spawn({{"redis-server"}, {}, "", ""});
  bool paused = false;
  EXPECT_EQ(ResumeServer("n1", host, pid, paused).error(), "n1 is not paused");
  ASSERT_TRUE(PauseServer("n1", host, pid, paused).ok());
  EXPECT_TRUE(paused);
  EXPECT_TRUE(host.stopped(pid));
  EXPECT_EQ(PauseServer("n1", host, pid, paused).error(), "n1 is already paused");
  ASSERT_TRUE(ResumeServer("n1", host, pid, paused).ok());
  EXPECT_FALSE(paused);
  EXPECT_FALSE(host.stopped(pid));
  ASSERT_TRUE(PauseServer("n1", host, pid, paused).ok());
  // A paused node killed is down and no longer paused.
  const int was = pid;
  ASSERT_TRUE(KillServer("n1", host, pid, paused).ok());
  EXPECT_FALSE(host.Alive(was));
  EXPECT_EQ(pid, -1);
  EXPECT_FALSE(paused);
  EXPECT_EQ(KillServer("n1", host, pid, paused).error(), "n1 is already down");
  EXPECT_EQ(PauseServer("n1", host, pid, paused).error(), "n1 is down");
  EXPECT_EQ(ResumeServer("n1", host, pid, paused).error(), "n1 is down");
}

}  // namespace
}  // namespace locksmith
