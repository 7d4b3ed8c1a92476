// Exec lock-client programs are contained, end to end on a real Redis: a
// program's child that starts a session and a network namespace of its own
// (setsid + unshare(CLONE_NEWNET)) is gone when the run ends, and when the
// controller was SIGKILLed, after `locksmith cleanup` (the run's cgroup is in
// its record); a program that floods its stderr leaves a capped log: its
// head, a note of what was cut, and its tail.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "base/testing/eventually.h"
#include "base/testing/temp_dir.h"
#include "cluster/proc_info.h"
#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

using std::chrono::seconds;

const std::string kFake =
    std::string(LOCKSMITH_SOURCE_DIR) + "/backends/testing/exec_programs/fake_adapter.py";

// The pids the programs' escaped children wrote in the run's client logs.
std::vector<int> EscapedChildren(const std::string& run) {
  std::vector<int> pids;
  const std::regex said("escaped child ([0-9]+)");
  std::error_code ec;
  for (const auto& log : std::filesystem::directory_iterator(run + "/clients", ec)) {
    const std::string text = ReadText(log.path().string());
    for (std::sregex_iterator it(text.begin(), text.end(), said), end; it != end; ++it) {
      pids.push_back(std::stoi((*it)[1]));
    }
  }
  return pids;
}

bool Alive(int pid) {
  auto st = ReadProcStat(pid);
  return st && st->state != 'Z';  // PID 1 may reap a dead one late
}

// The run's cgroup, as its record names it (the run log says where).
bool RunCgroupExists(const std::string& run) {
  const std::string log = ReadText(run + "/locksmith.log");
  const std::regex said("in a cgroup of its own under (/[^,]+),");
  std::smatch m;
  return std::regex_search(log, m, said) && std::filesystem::exists(m[1].str());
}

TEST(ContainmentTest, AnEscapedChildIsGoneWhenTheRunEnds) {
  TempDir dir;
  std::string out;
  ASSERT_EQ(RunLocksmith(dir.path(),
                         {"run", "--backend", "redis", "--client", "exec:" + kFake + " escape",
                          "--concurrency", "1", "--time-limit", "3", "--store", "store"},
                         seconds(90), &out),
            0)
      << out;
  const std::string run = LatestRun(dir.path() + "/store");
  const std::string log = ReadText(run + "/locksmith.log");
  ASSERT_NE(log.find("in a cgroup of its own under"), std::string::npos) << log;
  const std::vector<int> escaped = EscapedChildren(run);
  ASSERT_EQ(escaped.size(), 1u) << "the test proves nothing without the escaped child";
  for (int pid : escaped) {
    EXPECT_TRUE(Eventually([&] { return !Alive(pid); }, "escaped child gone")) << pid;
  }
  EXPECT_FALSE(RunCgroupExists(run));
}

TEST(ContainmentTest, AnEscapedChildOfASigkilledRunIsGoneAfterCleanup) {
  TempDir dir;
  const std::string store = dir.path() + "/store";
  LocksmithProcess run_process(
      dir.path(), {"run", "--backend", "redis", "--client", "exec:" + kFake + " escape",
                   "--concurrency", "2", "--time-limit", "120", "--store", "store"});
  ASSERT_TRUE(WaitForOps(store + "/latest", 20, seconds(60))) << run_process.Stderr();
  const std::string run = LatestRun(store);
  ASSERT_TRUE(Eventually([&] { return EscapedChildren(run).size() == 2; }, "both escape"));
  run_process.Signal(SIGKILL);
  ASSERT_TRUE(run_process.Wait(seconds(10)).has_value());
  const std::vector<int> escaped = EscapedChildren(run);
  // The programs die with the controller (PR_SET_PDEATHSIG); their children
  // in sessions and namespaces of their own do not.
  for (int pid : escaped) EXPECT_TRUE(Alive(pid)) << pid;
  EXPECT_TRUE(RunCgroupExists(run));
  std::string out;
  EXPECT_EQ(RunLocksmith(dir.path(), {"cleanup", "--tag", RunTag(run)}, seconds(60), &out), 0)
      << out;
  EXPECT_NE(out.find("killed the processes of cgroup"), std::string::npos) << out;
  for (int pid : escaped) {
    EXPECT_TRUE(Eventually([&] { return !Alive(pid); }, "escaped child gone")) << pid;
  }
  EXPECT_FALSE(RunCgroupExists(run));
}

TEST(ContainmentTest, AFloodingProgramLeavesACappedLog) {
  TempDir dir;
  std::string out;
  // 40 MiB on stderr at its hello, then the protocol as usual.
  ASSERT_EQ(RunLocksmith(dir.path(),
                         {"run", "--backend", "redis", "--client",
                          "exec:" + kFake + " stderr-flood 40", "--concurrency", "1",
                          "--time-limit", "2", "--store", "store"},
                         seconds(90), &out),
            0)
      << out;
  const std::string log = ReadText(LatestRun(dir.path() + "/store") + "/clients/client-0.log");
  EXPECT_LE(log.size(), (16u << 20) + 300u);
  EXPECT_GE(log.size(), 16u << 20);
  EXPECT_NE(log.find("bytes of this program's output cut here"), std::string::npos);
  EXPECT_EQ(log.substr(log.size() - 10), "flood end\n");
}

}  // namespace
}  // namespace locksmith::testing
