// Contained processes without root: a program that floods its output gets a
// log of its head, a note of what was cut and its tail, in bounded memory;
// a line filter sees every line; a program's child that leaves its process
// group (but not its session) dies with it (the fallback where there is no
// cgroup).
#include "cluster/log_pump.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/testing/eventually.h"
#include "base/testing/temp_dir.h"
#include "cluster/proc_info.h"
#include "cluster/process_supervisor.h"

namespace locksmith {
namespace {

using namespace std::chrono_literals;
using testing::Eventually;
using testing::TempDir;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool Gone(int pid) {
  auto st = ReadProcStat(pid);
  return !st || st->state == 'Z';  // PID 1 may reap it late
}

TEST(LogPumpTest, AFloodKeepsTheHeadANoteAndTheTail) {
  TempDir dir;
  const std::string log = dir.path() + "/client-0.log";
  ProcessSupervisor sup(SupervisorOptions{
      .contain_all = ContainSpec{}, .log = {.head_bytes = 1 << 20, .tail_bytes = 64 << 10}});
  // 8 MB of "flood" lines on stdout, then the last line on stderr.
  auto pid = sup.Spawn(
      "client.0",
      {{"sh", "-c", "echo first; yes flood | head -c 7999998; echo the-end >&2"}, {}, log, ""},
      "", "/");
  ASSERT_TRUE(pid.ok()) << pid.error();
  ASSERT_TRUE(Eventually([&] { return !sup.Alive("client.0", *pid); }, "the program exits"));
  ASSERT_TRUE(sup.KillAll().ok());
  const std::string text = ReadFile(log);
  EXPECT_LE(text.size(), (1u << 20) + (64u << 10) + 200u);
  EXPECT_EQ(text.rfind("first\nflood\n", 0), 0u);
  EXPECT_NE(text.find("bytes of this program's output cut here"), std::string::npos);
  EXPECT_EQ(text.substr(text.size() - 14), "flood\nthe-end\n");
  const size_t note = text.find("\n[locksmith: ");
  ASSERT_NE(note, std::string::npos);
  // What was cut and what was kept add up to what was written.
  const uint64_t cut = std::stoull(text.substr(note + 13));
  const size_t note_end = text.find("]\n", note) + 2;
  EXPECT_EQ(note + cut + (text.size() - note_end), 6u + 7999998u + 8u);
}

TEST(LogPumpTest, AFilterSeesEveryLineAndARestartSharesTheHead) {
  TempDir dir;
  const std::string log = dir.path() + "/client.log";
  LogPump pump({.head_bytes = 20,
                .tail_bytes = 16,
                .filter = [](std::string_view line) {
                  std::string out(line);
                  if (auto at = out.find("hunter2"); at != std::string::npos) {
                    out.replace(at, 7, "[redacted]");
                  }
                  return out;
                }});
  for (const char* text : {"password hunter2\n", "second run\nwith hunter2 again\nend"}) {
    auto fd = pump.Add(log);
    ASSERT_TRUE(fd.ok()) << fd.error();
    ASSERT_EQ(write(*fd, text, strlen(text)), static_cast<ssize_t>(strlen(text)));
    close(*fd);
    pump.Finish(5s);
  }
  const std::string text = ReadFile(log);
  EXPECT_EQ(text.find("hunter2"), std::string::npos) << text;
  // The first run's 20 bytes fill the head, so the second keeps its tail.
  EXPECT_EQ(text.rfind("password [redacted]\n", 0), 0u) << text;
  EXPECT_NE(text.find("cut here"), std::string::npos) << text;
  // The second run's last 16 bytes, after a note of the 20 before them.
  EXPECT_NE(text.find("[locksmith: 20 bytes"), std::string::npos) << text;
  EXPECT_EQ(text.substr(text.size() - 16), "acted] again\nend") << text;
}

TEST(LogPumpTest, AContainedProgramsChildInAnotherGroupDiesWithIt) {
  TempDir dir;
  const std::string child_pid = dir.path() + "/child.pid";
  ProcessSupervisor sup(SupervisorOptions{.contain_all = ContainSpec{}});
  // The child leaves the program's process group, as a daemon's would.
  auto pid = sup.Spawn(
      "client.0",
      {{"/usr/bin/python3", "-c",
        "import os, time\n"
        "if os.fork() == 0:\n"
        "    os.setpgid(0, 0)\n"
        "    open('" + child_pid + ".tmp', 'w').write(str(os.getpid()))\n"
        "    os.rename('" + child_pid + ".tmp', '" + child_pid + "')\n"
        "    time.sleep(1000)\n"
        "time.sleep(1000)\n"},
       {}, dir.path() + "/client.log", ""},
      "", "/");
  ASSERT_TRUE(pid.ok()) << pid.error();
  ASSERT_TRUE(Eventually([&] { return std::filesystem::exists(child_pid); }, "the child starts"));
  const int child = std::stoi(ReadFile(child_pid));
  EXPECT_NE(ReadProcStat(child)->pgrp, *pid);
  ASSERT_TRUE(sup.Kill("client.0", *pid).ok());
  EXPECT_TRUE(Eventually([&] { return Gone(child); }, "the child is killed"));
}

}  // namespace
}  // namespace locksmith
