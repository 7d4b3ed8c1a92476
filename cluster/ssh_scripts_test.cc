// The ssh provider's node scripts, run by this machine's /bin/sh on a
// directory of the test's own (no ssh, no node): the base directory is made
// private or refused in one line, files are always new and never a followed
// link, and processes are touched only while their pid still has the
// recorded start time. The firewall part of the cleanup script stays out
// (iptables is kept off its PATH).
#include "cluster/ssh_scripts.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/testing/temp_dir.h"
#include "cluster/proc_info.h"
#include "cluster/ssh_process.h"

namespace locksmith {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

ProcessOutput RunScript(const std::string& script, const std::vector<std::string>& args,
                        std::string_view input = "") {
  std::vector<std::string> argv = {"env", "PATH=/usr/bin:/bin", "sh", "-c", script, "sh"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = RunSshProcess(argv, input, std::chrono::seconds(20));
  EXPECT_TRUE(r.ok()) << r.error();
  return r.ok() ? *r : ProcessOutput{-1, "", r.error()};
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

unsigned ModeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// A `sleep` child of the test and its start time, killed and reaped at the end.
class Sleeper {
 public:
  Sleeper() {
    pid_ = fork();
    if (pid_ == 0) {
      execlp("sleep", "sleep", "60", static_cast<char*>(nullptr));
      _exit(127);
    }
    for (int i = 0; i < 1000 && start_ == 0; ++i) {
      auto st = ReadProcStat(pid_);
      // Until it has exec'd, the child is a copy of the test.
      if (st && ReadAll("/proc/" + std::to_string(pid_) + "/comm") == "sleep\n") {
        start_ = st->start_time;
      } else {
        usleep(1000);
      }
    }
  }
  ~Sleeper() {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  std::string pid() const { return std::to_string(pid_); }
  std::string start() const { return std::to_string(start_); }
  std::string wrong_start() const { return std::to_string(start_ + 1); }
  bool Alive() const { return IsSameProcessAlive(pid_, start_); }

 private:
  pid_t pid_ = -1;
  uint64_t start_ = 0;
};

TEST(SshPrepareScriptTest, MakesAPrivateBaseAndANewDirectoryPerHost) {
  TempDir dir;
  const std::string base = dir.path() + "/base";
  ProcessOutput r = RunScript(SshPrepareScript(), {base, "abc123", "m 1 2", "n1", "n2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ModeOf(base), 0700u);
  EXPECT_EQ(ModeOf(base + "/abc123/n1"), 0700u);
  EXPECT_TRUE(fs::is_directory(base + "/abc123/n2"));
  EXPECT_EQ(ReadAll(base + "/abc123/.controller"), "m 1 2\n");
  // Another host of the run on the same machine shares the run's directory.
  r = RunScript(SshPrepareScript(), {base, "abc123", "m 1 2", "n3"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // A host directory is always new.
  r = RunScript(SshPrepareScript(), {base, "abc123", "m 1 2", "n1"});
  EXPECT_EQ(r.exit_code, kSshRefusedExit) << r.err;
  EXPECT_EQ(r.err, "cannot create " + base + "/abc123/n1: File exists\n");
}

TEST(SshPrepareScriptTest, ABaseAnotherUserCouldHaveMadeIsRefusedInOneLine) {
  TempDir dir;
  const std::string base = dir.path() + "/base";
  const std::string owner = geteuid() == 0 ? "root" : "uid " + std::to_string(geteuid());
  auto refused = [&](const std::string& why) {
    ProcessOutput r = RunScript(SshPrepareScript(), {base, "abc123", "m 1 2", "n1"});
    EXPECT_EQ(r.exit_code, kSshRefusedExit) << why;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << why << ": " << r.err;
    EXPECT_FALSE(fs::exists(base + "/abc123")) << why;
    return r.err;
  };
  fs::create_directory(base);
  fs::permissions(base, fs::perms::all);
  EXPECT_EQ(refused("mode 0777"), base + " is owned by uid " + std::to_string(geteuid()) +
                                      " with mode 777, not by " + owner +
                                      " with mode 0700 (another user may have made it): remove "
                                      "it and run again\n");
  if (geteuid() == 0) {
    fs::permissions(base, fs::perms::owner_all, fs::perm_options::replace);
    ASSERT_EQ(chown(base.c_str(), 65534, 65534), 0);
    EXPECT_NE(refused("owned by nobody").find("is owned by uid 65534 with mode 700, not by root"),
              std::string::npos);
  }
  fs::remove(base);
  const std::string elsewhere = dir.path() + "/elsewhere";
  fs::create_directory(elsewhere);
  fs::permissions(elsewhere, fs::perms::owner_all, fs::perm_options::replace);
  fs::create_directory_symlink(elsewhere, base);
  EXPECT_NE(refused("a link").find(base + " is a symbolic link"), std::string::npos);
  EXPECT_TRUE(fs::is_empty(elsewhere));
  fs::remove(base);
  // A parent others may write into (without the sticky bit): whoever can
  // rename entries there can swap the base after the check.
  fs::permissions(dir.path(), fs::perms::all);
  EXPECT_NE(refused("a writable parent")
                .find(dir.path() + " (above " + base + ") can be changed by users other than"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(base));
}

TEST(SshListScriptTest, ListsRunsOfASafeBaseAndRefusesAnUnsafeOne) {
  TempDir dir;
  const std::string base = dir.path() + "/base";
  ProcessOutput r = RunScript(SshListScript(), {base});
  EXPECT_EQ(r.exit_code, 0) << r.err;  // no base: no runs
  EXPECT_EQ(r.out, "");
  ASSERT_EQ(RunScript(SshPrepareScript(), {base, "abc123", "m 1 2", "n1"}).exit_code, 0);
  EXPECT_EQ(RunScript(SshListScript(), {base}).out, "abc123 m 1 2\n");
  fs::permissions(base, fs::perms::all);
  r = RunScript(SshListScript(), {base});
  EXPECT_EQ(r.exit_code, kSshRefusedExit);
  EXPECT_NE(r.err.find("with mode 777"), std::string::npos) << r.err;
}

TEST(SshCleanupScriptTest, KillsOnlyTheRecordedProcessesOfASafeBase) {
  TempDir dir;
  const std::string base = dir.path() + "/base";
  ASSERT_EQ(RunScript(SshPrepareScript(), {base, "abc123", "m 1 2", "n1"}).exit_code, 0);
  Sleeper recorded, reused;
  ASSERT_TRUE(recorded.Alive() && reused.Alive());
  // `reused` stands for a process that got a recorded pid after its owner ended.
  std::ofstream(base + "/abc123/.pids-n1.x1") << recorded.pid() << " " << recorded.start() << "\n"
                                              << reused.pid() << " " << reused.wrong_start()
                                              << "\n";
  // In a base another user may have made, a pid file is not to be trusted.
  fs::permissions(base, fs::perms::all);
  ProcessOutput r = RunScript(SshCleanupScript(), {base, "abc123", "all"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(recorded.Alive());
  EXPECT_TRUE(fs::exists(base + "/abc123"));
  fs::permissions(base, fs::perms::owner_all, fs::perm_options::replace);
  r = RunScript(SshCleanupScript(), {base, "abc123", "all"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "killed pid " + recorded.pid() + "\nremoved " + base + "/abc123\n");
  EXPECT_FALSE(recorded.Alive());
  EXPECT_TRUE(reused.Alive());
}

TEST(SshProcessScriptsTest, SignalKillAndAliveNeedTheRecordedStartTime) {
  Sleeper p;
  ASSERT_TRUE(p.Alive());
  EXPECT_EQ(RunScript(SshAliveScript(), {p.pid(), p.start()}).exit_code, 0);
  EXPECT_NE(RunScript(SshAliveScript(), {p.pid(), p.wrong_start()}).exit_code, 0);
  ProcessOutput r =
      RunScript(SshSignalScript(), {std::to_string(SIGTERM), p.pid(), p.wrong_start()});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, "pid " + p.pid() + " has exited\n");
  EXPECT_EQ(RunScript(SshKillScript(), {p.pid(), p.wrong_start()}).exit_code, 0);
  EXPECT_TRUE(p.Alive());
  EXPECT_EQ(RunScript(SshSignalScript(), {std::to_string(SIGSTOP), p.pid(), p.start()}).exit_code,
            0);
  EXPECT_EQ(RunScript(SshKillScript(), {p.pid(), p.start()}).exit_code, 0);
  EXPECT_FALSE(p.Alive());
}

TEST(SshSpawnScriptTest, RecordsEachStartInANewPrivateFile) {
  TempDir dir;
  const std::string log = dir.path() + "/server.log";
  const std::string pids = dir.path() + "/.pids-n1";
  for (int i = 0; i < 2; ++i) {
    ProcessOutput r = RunScript(SshSpawnScript(), {dir.path(), log, pids, "--", "PATH=/bin",
                                                   "sh", "-c", "echo started"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::istringstream printed(r.out);
    int pid = 0;
    uint64_t start = 0;
    EXPECT_TRUE(printed >> pid >> start) << r.out;
  }
  int records = 0;
  for (const auto& e : fs::directory_iterator(dir.path())) {
    if (e.path().filename().string().rfind(".pids-n1.", 0) != 0) continue;
    ++records;
    EXPECT_EQ(ModeOf(e.path().string()), 0600u);
    const std::string record = ReadAll(e.path().string());
    EXPECT_EQ(std::count(record.begin(), record.end(), '\n'), 1) << record;
  }
  EXPECT_EQ(records, 2);
  EXPECT_EQ(ReadAll(log), "started\nstarted\n");
  EXPECT_EQ(ModeOf(log), 0600u);  // the server's umask is 077
}

TEST(SshWriteScriptTest, WritesANewPrivateFileAndNeverFollowsALink) {
  TempDir dir;
  const std::string victim = dir.path() + "/victim";
  std::ofstream(victim) << "keep";
  const std::string path = dir.path() + "/redis.conf";
  fs::create_symlink(victim, path);
  ProcessOutput r = RunScript(SshWriteScript(), {path}, "requirepass x\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadAll(victim), "keep");
  EXPECT_FALSE(fs::is_symlink(path));
  EXPECT_EQ(ReadAll(path), "requirepass x\n");
  EXPECT_EQ(ModeOf(path), 0600u);
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 2);  // no temporary left
  // A directory in the way is an error, not a place to move the file into.
  fs::create_directory(dir.path() + "/d");
  EXPECT_NE(RunScript(SshWriteScript(), {dir.path() + "/d"}, "x").exit_code, 0);
  EXPECT_TRUE(fs::is_empty(dir.path() + "/d"));
}

}  // namespace
}  // namespace locksmith
