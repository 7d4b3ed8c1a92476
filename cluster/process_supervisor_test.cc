#include "cluster/process_supervisor.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "base/testing/eventually.h"
#include "base/testing/temp_dir.h"
#include "cluster/proc_info.h"

namespace locksmith {
namespace {
namespace fs = std::filesystem;
using namespace std::chrono_literals;

using testing::Eventually;
using testing::TempDir;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The process has exited and been reaped (bounded: see Eventually).
::testing::AssertionResult Exits(ProcessSupervisor& sup, const std::string& host, int pid) {
  return Eventually([&] { return !sup.Alive(host, pid); },
                    "process " + std::to_string(pid) + " exits");
}

TEST(ProcessSupervisorTest, SpawnsSignalsAndKills) {
  TempDir dir;
  ProcessSupervisor sup(true);
  auto pid = sup.Spawn("n1", {{"sleep", "1000"}, {}, dir.path() + "/n1/sleep.log", ""}, "", "/");
  ASSERT_TRUE(pid.ok()) << pid.error();
  EXPECT_TRUE(sup.Alive("n1", *pid));
  EXPECT_EQ(ReadProcStat(*pid)->pgrp, *pid);  // leads its own process group
  EXPECT_TRUE(fs::exists(dir.path() + "/n1/sleep.log"));

  // Another host's pid and an unknown pid are refused.
  EXPECT_FALSE(sup.Signal("n2", *pid, SIGSTOP).ok());
  EXPECT_FALSE(sup.Kill("n2", *pid).ok());
  EXPECT_FALSE(sup.Alive("n2", *pid));
  EXPECT_FALSE(sup.Signal("n1", getpid(), 0).ok());
  EXPECT_TRUE(sup.Alive("n1", *pid));

  ASSERT_TRUE(sup.Signal("n1", *pid, SIGSTOP).ok());
  EXPECT_TRUE(sup.Alive("n1", *pid));  // stopped is not exited
  ASSERT_TRUE(sup.Signal("n1", *pid, SIGCONT).ok());
  ASSERT_TRUE(sup.Kill("n1", *pid).ok());
  EXPECT_FALSE(sup.Alive("n1", *pid));
  EXPECT_FALSE(ReadProcStat(*pid).has_value());  // reaped, no zombie
  EXPECT_TRUE(sup.Kill("n1", *pid).ok());        // idempotent
  EXPECT_FALSE(sup.Signal("n1", *pid, SIGTERM).ok());
}

TEST(ProcessSupervisorTest, NoticesExitAndReaps) {
  ProcessSupervisor sup(false);
  auto pid = sup.Spawn("n1", {{"true"}, {}, "", ""}, "", "/");
  ASSERT_TRUE(pid.ok()) << pid.error();
  ASSERT_TRUE(Exits(sup, "n1", *pid));
  EXPECT_FALSE(ReadProcStat(*pid).has_value());
  EXPECT_TRUE(sup.Unreaped().empty());
}

TEST(ProcessSupervisorTest, TalksOverPipesWithStderrInTheLog) {
  TempDir dir;
  int to_child[2], from_child[2];
  ASSERT_EQ(pipe2(to_child, O_CLOEXEC), 0);
  ASSERT_EQ(pipe2(from_child, O_CLOEXEC), 0);
  ProcessSupervisor sup(true);
  ProcessSpec spec{{"sh", "-c", "read line; echo \"got $line\"; echo oops >&2"},
                   {"PATH=/usr/bin:/bin"}, dir.path() + "/err.log", ""};
  spec.stdin_fd = to_child[0];
  spec.stdout_fd = from_child[1];
  auto pid = sup.Spawn("c1", spec, "", "/");
  close(to_child[0]);
  close(from_child[1]);
  ASSERT_TRUE(pid.ok()) << pid.error();
  ASSERT_EQ(write(to_child[1], "hello\n", 6), 6);
  close(to_child[1]);
  std::string out;
  char buf[64];
  for (ssize_t n; (n = read(from_child[0], buf, sizeof(buf))) > 0;) out.append(buf, n);
  close(from_child[0]);
  ASSERT_TRUE(Exits(sup, "c1", *pid));
  EXPECT_EQ(out, "got hello\n");
  EXPECT_EQ(ReadFile(dir.path() + "/err.log"), "oops\n");
}

TEST(ProcessSupervisorTest, LogsOutputWithACleanEnvironmentAndNoInheritedFds) {
  TempDir dir;
  // A descriptor without O_CLOEXEC in the controller must not reach servers.
  int low = open("/dev/null", O_RDONLY);
  ASSERT_GE(low, 0);
  int leak = fcntl(low, F_DUPFD, 100);  // above the fd `ls` itself opens
  close(low);
  ASSERT_GE(leak, 100);
  setenv("LOCKSMITH_TEST_SECRET", "x", 1);
  ProcessSupervisor sup(true);
  std::string log = dir.path() + "/out.log";
  auto pid = sup.Spawn("n1",
                       {{"sh", "-c", "echo out; echo err >&2; pwd; env; ls /proc/self/fd"},
                        {"FOO=bar", "PATH=/usr/bin:/bin"},
                        log,
                        ""},
                       "", "/");
  ASSERT_TRUE(pid.ok()) << pid.error();
  const ::testing::AssertionResult exited = Exits(sup, "n1", *pid);
  close(leak);
  unsetenv("LOCKSMITH_TEST_SECRET");
  ASSERT_TRUE(exited);
  std::string out = ReadFile(log);
  EXPECT_NE(out.find("out\n"), std::string::npos);
  EXPECT_NE(out.find("err\n"), std::string::npos);
  EXPECT_NE(out.find(dir.path() + "\n"), std::string::npos);  // cwd: the log's directory
  EXPECT_NE(out.find("FOO=bar"), std::string::npos);
  EXPECT_NE(out.find("PATH=/usr/bin:/bin"), std::string::npos);
  EXPECT_EQ(out.find("LOCKSMITH_TEST_SECRET"), std::string::npos);
  EXPECT_EQ(out.find("\n" + std::to_string(leak) + "\n"), std::string::npos) << out;
}

TEST(ProcessSupervisorTest, ReportsStartFailuresClearly) {
  ProcessSupervisor sup(true);
  auto missing = sup.Spawn("n1", {{"no-such-program-locksmith"}, {}, "", ""}, "", "/");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("no-such-program-locksmith"), std::string::npos);
  auto bad_ns = sup.Spawn("n1", {{"true"}, {}, "", ""}, "/nonexistent/netns", "/");
  ASSERT_FALSE(bad_ns.ok());
  EXPECT_NE(bad_ns.error().find("/nonexistent/netns"), std::string::npos);
  auto bad_cwd = sup.Spawn("n1", {{"true"}, {}, "", "/nonexistent/dir"}, "", "/");
  ASSERT_FALSE(bad_cwd.ok());
  EXPECT_NE(bad_cwd.error().find("working directory"), std::string::npos);
  EXPECT_FALSE(sup.Spawn("n1", {{}, {}, "", ""}, "", "/").ok());
  EXPECT_FALSE(sup.Spawn("n1", {{"true"}, {"NOEQUALS"}, "", ""}, "", "/").ok());
  EXPECT_TRUE(sup.Unreaped().empty());
}

TEST(ProcessSupervisorTest, KillReachesTheWholeProcessGroup) {
  TempDir dir;
  ProcessSupervisor sup(true);
  std::string log = dir.path() + "/wrapper.log";
  // A wrapper (like zkServer.sh) whose real server is its child.
  auto pid = sup.Spawn("n1", {{"sh", "-c", "sleep 1000 & echo $!; wait"}, {}, log, ""}, "", "/");
  ASSERT_TRUE(pid.ok()) << pid.error();
  // The shell writes the line asynchronously.
  ASSERT_TRUE(Eventually([&] { return ReadFile(log).find('\n') != std::string::npos; },
                         "the wrapper logs its child's pid"));
  int child = std::stoi(ReadFile(log));
  auto st = ReadProcStat(child);
  ASSERT_TRUE(st.has_value());
  ASSERT_TRUE(sup.Kill("n1", *pid).ok());
  EXPECT_TRUE(WaitUntilGone({{child, st->start_time}}, 10s).empty());
}

TEST(ProcessSupervisorTest, KillAllKillsEverythingAndRefusesNewSpawns) {
  ProcessSupervisor sup(true);
  std::vector<int> pids;
  for (const char* host : {"n1", "n2", "n3"}) {
    auto pid = sup.Spawn(host, {{"sleep", "1000"}, {}, "", ""}, "", "/");
    ASSERT_TRUE(pid.ok());
    pids.push_back(*pid);
  }
  ASSERT_TRUE(sup.KillAll().ok());
  for (int pid : pids) EXPECT_FALSE(ReadProcStat(pid).has_value());
  EXPECT_TRUE(sup.KillAll().ok());
  EXPECT_FALSE(sup.Spawn("n1", {{"sleep", "1000"}, {}, "", ""}, "", "/").ok());
}

TEST(ProcessSupervisorTest, ConcurrentSpawnsAndKillsFromSeveralThreads) {
  ProcessSupervisor sup(true);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::string host = "n" + std::to_string(t);
      for (int i = 0; i < 10; ++i) {
        auto pid = sup.Spawn(host, {{"sleep", "1000"}, {}, "", ""}, "", "/");
        if (!pid.ok() || !sup.Alive(host, *pid) || !sup.Kill(host, *pid).ok()) ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_TRUE(sup.Unreaped().empty());
}

TEST(RunCommandTest, CapturesOutputAndExitCode) {
  auto r = RunCommand({"sh", "-c", "echo hello; echo oops >&2; exit 3"}, "", 10s);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_NE(r->output.find("hello"), std::string::npos);
  EXPECT_NE(r->output.find("oops"), std::string::npos);
}

TEST(RunCommandTest, KillsACommandThatOverrunsItsTimeout) {
  auto r = RunCommand({"sleep", "1000"}, "", 100ms);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("did not finish"), std::string::npos);
  EXPECT_FALSE(RunCommand({"no-such-program-locksmith"}, "", 1s).ok());
}

}  // namespace
}  // namespace locksmith
