// The servers' passwords of a real run (Redis with the inventory workload:
// the lock service's and the protected resource's) are in no file the run
// keeps once it ended (nor in what it printed): not in config.json,
// results.json, report.html, locksmith.log, nor the copies of the node
// configs, which say `requirepass "[redacted]"`. While the servers run their
// configs are readable by root only. A replay of the run gets new
// passwords. A password an exec client program prints (to its stderr, in a
// line that is not JSON, in an error) is in nothing the run wrote (its
// client log, history.bin, locksmith.log, results.json, report.html) nor
// printed. Root only.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <thread>

#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;

// The `requirepass` values of the live node configs under `nodes`, each
// config checked to be private.
std::set<std::string> LivePasswords(const std::string& nodes) {
  std::set<std::string> passwords;
  for (const auto& e : fs::recursive_directory_iterator(nodes)) {
    if (e.path().extension() != ".conf") continue;
    struct stat st {};
    EXPECT_EQ(stat(e.path().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 077, 0u) << e.path() << " is readable by others";
    std::istringstream lines(ReadText(e.path().string()));
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("requirepass \"", 0) != 0) continue;
      passwords.insert(line.substr(13, line.size() - 14));
    }
  }
  return passwords;
}

struct WatchedRun {
  std::string dir;
  std::set<std::string> passwords;
  std::string output;  // stdout and stderr
};

// Runs `locksmith run` and reads the servers' passwords while they run.
WatchedRun RunAndReadPasswords(const std::string& dir, const std::vector<std::string>& flags) {
  std::vector<std::string> args = {"run", "--store", "store"};
  args.insert(args.end(), flags.begin(), flags.end());
  const std::string before = LatestRun(dir + "/store");
  LocksmithProcess process(dir, args);
  WatchedRun run;
  for (int i = 0; i < 600 && (run.dir.empty() || run.dir == before); ++i) {
    run.dir = LatestRun(dir + "/store");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(WaitForText(run.dir + "/locksmith.log", "resource store up", seconds(60)))
      << process.Stdout() << process.Stderr();
  run.passwords = LivePasswords(run.dir + "/nodes");
  EXPECT_EQ(process.Wait(seconds(120)), 0) << process.Stdout() << process.Stderr();
  run.output = process.Stdout() + process.Stderr();
  return run;
}

TEST(SecretsTest, NoFileARunKeepsHoldsItsServersPasswordsAndAReplayGetsNewOnes) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (network namespaces)";
  TempDir dir;
  const WatchedRun first = RunAndReadPasswords(
      dir.path(), {"--backend", "redis", "--workload", "inventory", "--time-limit", "2",
                   "--seed", "11"});
  ASSERT_EQ(first.passwords.size(), 2u) << "the lock service's and the resource store's";
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(first.dir)) {
    if (!e.is_regular_file()) continue;
    ++files;
    const std::string text = ReadText(e.path().string());
    for (const auto& password : first.passwords) {
      EXPECT_EQ(text.find(password), std::string::npos) << e.path() << " holds a password";
    }
  }
  EXPECT_GE(files, 8) << "config, history, results, log, reports, node configs and logs";
  for (const auto& password : first.passwords) {
    EXPECT_EQ(first.output.find(password), std::string::npos) << "the output holds a password";
  }
  EXPECT_NE(ReadText(first.dir + "/nodes/n1/redis.conf").find("requirepass \"[redacted]\""),
            std::string::npos);
  // The replay: the same config, seed included.
  const WatchedRun replay =
      RunAndReadPasswords(dir.path(), {"--config", first.dir + "/config.json"});
  ASSERT_EQ(replay.passwords.size(), 2u);
  for (const auto& password : replay.passwords) {
    EXPECT_EQ(first.passwords.count(password), 0u) << "the replay reused a password";
  }
}

TEST(SecretsTest, APasswordAnAdapterPrintsIsInNothingTheRunWroteOrPrinted) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (network namespaces)";
  TempDir dir;
  // Where the program puts the password it was handed, outside the run:
  // writable whoever the program runs as.
  const std::string drop = dir.path() + "/drop";
  fs::create_directories(drop);
  fs::permissions(drop, fs::perms::all);
  const std::string adapter =
      std::string(LOCKSMITH_SOURCE_DIR) + "/backends/testing/exec_programs/fake_adapter.py";
  std::string output;
  const int code = RunLocksmith(
      dir.path(),
      {"run", "--store", "store", "--backend", "redis", "--client",
       "exec:" + adapter + " leak 1 " + drop + "/password", "--time-limit", "2", "--concurrency",
       "2", "--seed", "12"},
      seconds(120), &output);
  EXPECT_NE(code, -1) << output;
  const std::string password = ReadText(drop + "/password");
  ASSERT_GE(password.size(), 32u) << "the program was handed no password: " << password;
  const std::string run = LatestRun(dir.path() + "/store");
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(run)) {
    if (!e.is_regular_file()) continue;
    ++files;
    EXPECT_EQ(ReadText(e.path().string()).find(password), std::string::npos)
        << e.path() << " holds the password";
  }
  EXPECT_GE(files, 8);
  EXPECT_EQ(output.find(password), std::string::npos) << "the output holds the password";
  // The program did print it: where it did, the run says [redacted].
  EXPECT_NE(ReadText(run + "/clients/client-0.log").find("connecting with password [redacted]"),
            std::string::npos);
  const std::string history = HistoryJsonl(run);
  EXPECT_NE(history.find("denied with password [redacted]"), std::string::npos) << history;
  EXPECT_NE(history.find("AUTH [redacted]"), std::string::npos) << history;
  EXPECT_NE(ReadText(run + "/locksmith.log").find("AUTH [redacted]"), std::string::npos);
}

}  // namespace
}  // namespace locksmith::testing
