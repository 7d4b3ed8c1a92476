// The power shim's bookkeeping, end to end without servers: a program
// (power_shim_workout.cc) changes files under the shim, some synced and some
// not, and exits as if killed; the replay must bring back exactly what was
// synced.
#include "nemesis/power_journal.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/testing/temp_dir.h"
#include "cluster/testing/fake_host.h"
#include "nemesis/power_journal_format.h"

extern char** environ;

namespace locksmith {
namespace {
namespace fs = std::filesystem;

std::string Contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

class PowerJournalTest : public ::testing::Test {
 protected:
  void SetUp() override { fs::create_directories(journal_); }

  // Runs the workout in dir_ under the shim; its exit status.
  int RunWorkout() {
    auto shim = FindPowerShimLibrary();
    EXPECT_TRUE(shim.ok()) << shim.error();
    std::vector<std::string> env = {
        "LD_PRELOAD=" + *shim,
        std::string(power_journal::kScopeEnv) + "=" + dir_.path(),
        std::string(power_journal::kJournalDirEnv) + "=" + journal_};
    std::vector<std::string> args = {LOCKSMITH_POWER_WORKOUT, dir_.path()};
    std::vector<char*> argv, envp;
    for (auto& a : args) argv.push_back(a.data());
    for (auto& e : env) envp.push_back(e.data());
    argv.push_back(nullptr);
    envp.push_back(nullptr);
    pid_t pid = 0;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    EXPECT_EQ(spawned, 0);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::string File(const std::string& name) { return Contents(dir_.path() + "/" + name); }
  bool Exists(const std::string& name) { return fs::exists(dir_.path() + "/" + name); }

  testing::TempDir dir_{"locksmith-power"};
  const std::string journal_ = dir_.path() + "/power-loss";
};

TEST_F(PowerJournalTest, TheShimChangesNothingUntilTheReplay) {
  ASSERT_EQ(RunWorkout(), 0);
  EXPECT_EQ(File("data"), "XYZlo world more");
  EXPECT_EQ(File("aof"), "SET a 1;SET b 2;");
  EXPECT_EQ(fs::file_size(dir_.path() + "/log"), 8192u);
  EXPECT_EQ(File("manifest"), "new manifest");
  EXPECT_FALSE(Exists("manifest.tmp"));
  EXPECT_EQ(File("trunc"), "0123ab");
  EXPECT_EQ(File("fresh"), "lost");
  EXPECT_TRUE(fs::exists(journal_ + "/" + power_journal::kJournalFile));
}

TEST_F(PowerJournalTest, ReplayKeepsExactlyWhatWasSynced) {
  ASSERT_EQ(RunWorkout(), 0);
  auto undo = PowerJournal::Replay(journal_);
  ASSERT_TRUE(undo.ok()) << undo.error();

  // Written, synced, written again: the overwrite and the append undone.
  EXPECT_EQ(File("data"), "hello world");
  EXPECT_EQ(File("aof"), "SET a 1;");
  // Preallocated and synced, one transaction synced: the second one and the
  // growth undone, the padding kept.
  const std::string log = File("log");
  ASSERT_EQ(log.size(), 4096u);
  EXPECT_EQ(log.substr(0, 8), std::string("txn1") + std::string(4, '\0'));
  EXPECT_EQ(log.find_first_not_of('\0', 4), std::string::npos);
  // Renamed with no sync after: undone, the replaced file back; the renames
  // a later sync of the directory or of another file made durable stay.
  EXPECT_EQ(File("manifest"), "old manifest");
  EXPECT_EQ(File("manifest.tmp"), "new manifest");
  EXPECT_EQ(File("kept"), "kept");
  EXPECT_FALSE(Exists("kept.tmp"));
  EXPECT_EQ(File("epoch"), "1");
  EXPECT_FALSE(Exists("epoch.tmp"));
  // Truncated below the synced size: the bytes come back.
  EXPECT_EQ(File("trunc"), "0123456789");
  // Never synced: removed.
  EXPECT_FALSE(Exists("fresh"));

  EXPECT_EQ(undo->files_removed, 1);
  EXPECT_EQ(undo->renames_undone, 1);
  EXPECT_GE(undo->writes_undone, 3);
  // The journal is empty (and the replaced manifest's copy gone).
  EXPECT_TRUE(fs::is_empty(journal_));
}

TEST_F(PowerJournalTest, ReplayTwiceOrWithoutAJournalUndoesNothing) {
  auto none = PowerJournal::Replay(journal_);
  ASSERT_TRUE(none.ok()) << none.error();
  EXPECT_EQ(none->records, 0);
  ASSERT_EQ(RunWorkout(), 0);
  ASSERT_TRUE(PowerJournal::Replay(journal_).ok());
  auto again = PowerJournal::Replay(journal_);
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(again->records, 0);
  EXPECT_EQ(File("data"), "hello world");
}

TEST_F(PowerJournalTest, InstallCoversTheHostsDirectoryBesideOtherPreloads) {
  testing::FakeHost host("n1");
  ASSERT_TRUE(host.SetSpawnEnv("LD_PRELOAD=/opt/clock.so").ok());
  ASSERT_TRUE(PowerJournal::Install(host, "/opt/power.so").ok());
  EXPECT_TRUE(PowerJournal::Installed(host));
  const std::vector<std::string> env = host.SpawnEnv();
  EXPECT_EQ(env.at(0), "LD_PRELOAD=/opt/clock.so:/opt/power.so");
  EXPECT_EQ(env.at(1), std::string(power_journal::kScopeEnv) + "=" + host.Directory());
  EXPECT_EQ(env.at(2),
            std::string(power_journal::kJournalDirEnv) + "=" + host.PathOf("power-loss"));
}

}  // namespace
}  // namespace locksmith
