// A run whose store fills up: once a history write fails, the workload
// ends, the servers go, and the verdict is unknown (exit 2) with one line
// naming the history file and the error, instead of a verdict on a history
// cut short; the room the run kept lets results.json say so; and the
// server's password does not stay in the node files it keeps. The store is a small tmpfs mounted in a mount namespace of the
// test's own, which ends with the test. Root only.
#include <sched.h>
#include <sys/mount.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "base/scope_exit.h"
#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

using std::chrono::seconds;

TEST(FullDiskTest, AStoreThatFillsUpEndsTheRunUnknownWithOneLine) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (a tmpfs in a mount namespace)";
  TempDir dir;
  const std::string store = dir.path() + "/store";
  std::filesystem::create_directory(store);
  // This process's own mount namespace: the run it starts sees the tmpfs,
  // nothing else on the machine does.
  ASSERT_EQ(unshare(CLONE_NEWNS), 0) << "unshare: " << std::strerror(errno);
  ASSERT_EQ(mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr), 0) << std::strerror(errno);
  ASSERT_EQ(mount("lsm-full-disk", store.c_str(), "tmpfs", 0, "size=256k"), 0)
      << std::strerror(errno);
  ScopeExit unmount([&] { umount2(store.c_str(), MNT_DETACH); });

  std::string out;
  const auto began = std::chrono::steady_clock::now();
  const int code = RunLocksmith(dir.path(),
                                {"run", "--store", store, "--backend", "redis", "--loopback",
                                 "--concurrency", "10", "--hold", "0-0",  // fills it at once
                                 "--time-limit", "40"},
                                seconds(120), &out);
  const auto took = std::chrono::steady_clock::now() - began;
  const std::string run = LatestRun(store);
  ASSERT_FALSE(run.empty()) << out;
  EXPECT_EQ(code, 2) << out;
  const std::string line = "history incomplete: cannot write " + run +
                           "/history.bin: No space left on device";
  EXPECT_NE(out.find(line), std::string::npos) << out;
  // The room the run kept for it takes the verdict, though the disk is full.
  const nlohmann::json results = ReadJson(run + "/results.json");
  EXPECT_EQ(results["valid"], "unknown") << results.dump();
  EXPECT_EQ(results["reason"], line);
  EXPECT_EQ(results["history_error"], line.substr(std::string("history incomplete: ").size()));
  EXPECT_FALSE(std::filesystem::exists(run + "/.results-room"));
  // The failed write ended the workload, long before its time limit.
  EXPECT_LT(took, seconds(25)) << out;
  ExpectNothingLeft(run);
  // No redacted copy of the server's config fits on the full disk: its
  // password is masked where it stands.
  const std::string config = ReadText(run + "/nodes/n1/redis.conf");
  const size_t at = config.find("requirepass \"");
  ASSERT_NE(at, std::string::npos) << config;
  const std::string password = config.substr(at + 13, config.find('"', at + 13) - at - 13);
  EXPECT_EQ(password, std::string(password.size(), '*')) << config;
  EXPECT_GE(password.size(), 32u);
}

}  // namespace
}  // namespace locksmith::testing
