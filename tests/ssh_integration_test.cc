// The ssh provider end to end, without Docker: the nodes are network
// namespaces of this machine running sshd (SshdNodes). Runs of the
// single-Redis backend through the ssh provider get the verdicts the local
// provider gets; after teardown nothing of the run is left on the nodes
// (processes, rules, files) or on the controller (control connections);
// bad input, and a base directory another user made on a node, give one
// clear line; `locksmith cleanup --provider ssh` removes what a SIGKILLed
// run left. Root only.
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <thread>

#include "base/testing/temp_dir.h"
#include "cluster/ssh_cluster.h"
#include "tests/locksmith_process.h"
#include "tests/sshd_nodes.h"

namespace locksmith::testing {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;

struct Outcome {
  int code = -1;
  std::string out;
  std::string run;
  nlohmann::json results;
};

Outcome RunIn(const TempDir& dir, const std::vector<std::string>& flags) {
  Outcome o;
  std::vector<std::string> args = {"run", "--store", "store"};
  args.insert(args.end(), flags.begin(), flags.end());
  o.code = RunLocksmith(dir.path(), args, seconds(180), &o.out);
  o.run = LatestRun(dir.path() + "/store");
  o.results = ReadJson(o.run + "/results.json");
  return o;
}

// Control connections of run `tag` still open on the controller.
std::vector<std::string> ControlLeftovers(const std::string& tag) {
  std::vector<std::string> left;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/tmp", ec)) {
    if (e.path().filename().string().rfind("lsm-ssh-" + tag, 0) == 0) {
      left.push_back(e.path().string());
    }
  }
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string cmd = ReadText(e.path().string() + "/cmdline");
    if (cmd.find("lsm-ssh-" + tag) != std::string::npos) left.push_back("process " + cmd);
  }
  return left;
}

class SshProviderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (network namespaces)";
    auto nodes = SshdNodes::Start(3, dir_.path());
    ASSERT_TRUE(nodes.ok()) << nodes.error();
    nodes_ = std::move(*nodes);
  }

  void ExpectNodesClean(const std::string& tag) {
    for (size_t i = 0; i < nodes_->Addresses().size(); ++i) {
      for (const auto& stray : nodes_->Strays(i)) ADD_FAILURE() << "node " << i << ": " << stray;
    }
    for (const auto& l : ControlLeftovers(tag)) ADD_FAILURE() << "left: " << l;
  }

  std::vector<std::string> Ssh(std::vector<std::string> flags) {
    const auto more = nodes_->Flags();
    flags.insert(flags.end(), more.begin(), more.end());
    return flags;
  }

  TempDir dir_{"locksmith-ssh"};
  std::unique_ptr<SshdNodes> nodes_;
};

TEST_F(SshProviderTest, SingleRedisRunsGetTheLocalProvidersVerdicts) {
  const std::vector<std::vector<std::string>> cases = {
      {"--backend", "redis", "--time-limit", "6", "--seed", "5"},
      {"--backend", "redis", "--time-limit", "12", "--seed", "5", "--nemesis", "kill,partition",
       "--nemesis-interval", "3"},
  };
  for (const auto& flags : cases) {
    TempDir local_dir, ssh_dir;
    const Outcome local = RunIn(local_dir, flags);
    const Outcome ssh = RunIn(ssh_dir, Ssh(flags));
    ASSERT_TRUE(ssh.results.is_object()) << ssh.out;
    EXPECT_EQ(ssh.code, local.code) << "ssh:\n" << ssh.out << "\nlocal:\n" << local.out;
    EXPECT_EQ(ssh.results["valid"], local.results["valid"]);
    const std::string tag = RunTag(ssh.run);
    ASSERT_FALSE(tag.empty()) << ssh.out;
    ExpectNodesClean(tag);
    // The node's files came back into the run directory, without the
    // server's password.
    EXPECT_NE(ReadText(ssh.run + "/nodes/n1/redis.conf").find("requirepass \"[redacted]\""),
              std::string::npos)
        << ssh.run;
    bool has_log = false;
    for (const auto& e : fs::directory_iterator(ssh.run + "/nodes/n1")) {
      has_log |= e.path().extension() == ".log";
    }
    EXPECT_TRUE(has_log);
    if (flags.size() > 6) {
      // The faults ran on the nodes: a partition's rules and a kill.
      const std::string history = HistoryJsonl(ssh.run);
      std::string faults;
      std::istringstream lines(history);
      for (std::string line; std::getline(lines, line);) {
        if (line.find("\"process\":\"nemesis\"") != std::string::npos) faults += line + "\n";
      }
      EXPECT_NE(history.find("\"rules\":{\"n1\""), std::string::npos) << faults;
      EXPECT_NE(history.find("\"f\":\"kill\""), std::string::npos);
    }
  }
}

TEST_F(SshProviderTest, SentinelAndZooKeeperRunsGetTheLocalProvidersVerdicts) {
  // Verdicts that do not hang on timing: Sentinel without faults (a killed
  // master's failover may or may not lose a grant), ZooKeeper with kills.
  const std::vector<std::vector<std::string>> cases = {
      {"--backend", "redis-sentinel", "--time-limit", "5", "--seed", "7"},
      {"--backend", "zookeeper", "--time-limit", "6", "--seed", "7", "--nemesis", "kill",
       "--nemesis-interval", "2"}};
  for (const auto& flags : cases) {
    const std::string& backend = flags[1];
    TempDir local_dir, ssh_dir;
    const Outcome local = RunIn(local_dir, flags);
    const Outcome ssh = RunIn(ssh_dir, Ssh(flags));
    ASSERT_TRUE(ssh.results.is_object()) << ssh.out;
    EXPECT_EQ(ssh.code, local.code) << backend << "\nssh:\n" << ssh.out << "\nlocal:\n"
                                    << local.out;
    EXPECT_EQ(ssh.results["valid"], local.results["valid"]) << backend;
    const std::string tag = RunTag(ssh.run);
    ASSERT_FALSE(tag.empty()) << ssh.out;
    ExpectNodesClean(tag);
    if (flags.size() > 6) {
      EXPECT_NE(HistoryJsonl(ssh.run).find("\"f\":\"kill\""),
                std::string::npos);
    }
  }
}

// The backends whose servers refuse root (PostgreSQL, MariaDB) run inside
// the node's private base directory (backends/non_root_server.h), and etcd's
// members find each other at the nodes' addresses: each valid without faults.
TEST_F(SshProviderTest, EtcdMariadbAndPostgresRunOnTheNodes) {
  for (const std::string backend : {"etcd", "mariadb", "postgres"}) {
    TempDir ssh_dir;
    const Outcome ssh =
        RunIn(ssh_dir, Ssh({"--backend", backend, "--time-limit", "3", "--seed", "3"}));
    ASSERT_TRUE(ssh.results.is_object()) << backend << "\n" << ssh.out;
    EXPECT_EQ(ssh.code, 0) << backend << "\n" << ssh.out;
    EXPECT_EQ(ssh.results["valid"], true) << backend;
    EXPECT_GT(ssh.results["stats"]["perf"]["stats"]["by_type"].value("ok", int64_t{0}), 10)
        << backend;
    const std::string tag = RunTag(ssh.run);
    ASSERT_FALSE(tag.empty()) << ssh.out;
    ExpectNodesClean(tag);
  }
}

TEST_F(SshProviderTest, BadInputIsOneClearLine) {
  TempDir dir;
  std::string out;
  // A node that does not resolve: the run cannot be carried out.
  EXPECT_EQ(RunLocksmith(dir.path(),
                         {"run", "--store", "store", "--time-limit", "1", "--provider", "ssh",
                          "--nodes", "no-such-node.invalid", "--ssh-key", nodes_->Key()},
                         seconds(60), &out),
            255);
  EXPECT_NE(out.find("cannot resolve node \"no-such-node.invalid\""), std::string::npos) << out;
  // A key the nodes do not accept.
  const std::string other_key = dir.path() + "/other";
  ASSERT_EQ(system(("ssh-keygen -q -t ed25519 -N '' -f " + other_key).c_str()), 0);
  EXPECT_EQ(RunLocksmith(dir.path(),
                         {"run", "--store", "store", "--time-limit", "1", "--provider", "ssh",
                          "--nodes", nodes_->Addresses()[0], "--ssh-key", other_key,
                          "--ssh-known-hosts", nodes_->KnownHosts()},
                         seconds(60), &out),
            255);
  EXPECT_NE(out.find("cannot connect to node " + nodes_->Addresses()[0] +
                     " as root on port 22: "),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("Permission denied"), std::string::npos) << out;
  // Flags that cannot work together: bad arguments.
  EXPECT_EQ(RunLocksmith(dir.path(), {"run", "--provider", "ssh"}, seconds(30), &out), 254);
  EXPECT_NE(out.find("--provider ssh needs the nodes"), std::string::npos) << out;
  EXPECT_EQ(RunLocksmith(dir.path(), {"run", "--nodes", "n1"}, seconds(30), &out), 254);
  EXPECT_EQ(RunLocksmith(dir.path(), {"run", "--provider", "ssh", "--nodes", "-oProxyCommand=x"},
                         seconds(30), &out),
            254);
}

TEST_F(SshProviderTest, AMissingPackageThatAptCannotInstallIsOneLine) {
  SshClusterOptions options;
  options.host_names = {"n1"};
  options.nodes = {nodes_->Addresses()[0]};
  options.ssh.key = nodes_->Key();
  options.ssh.known_hosts = nodes_->KnownHosts();
  options.packages = {"locksmith-no-such-package"};
  auto cluster = CreateSshCluster(options);
  ASSERT_FALSE(cluster.ok());
  EXPECT_NE(cluster.error().find("cannot install locksmith-no-such-package with apt-get"),
            std::string::npos)
      << cluster.error();
  EXPECT_EQ(cluster.error().find('\n'), std::string::npos) << cluster.error();
}

// Root writes the servers' configs, the clock shim library and pid files
// into the base directory: one another user made first (and so may change)
// is refused before anything is written there, by a run and by cleanup.
TEST_F(SshProviderTest, ABaseDirectoryAnotherUserMadeIsRefusedInOneLine) {
  const std::string base = kSshBaseDir;
  for (const auto& [i, plant] : std::vector<std::pair<size_t, std::vector<std::string>>>{
           {0, {"chown", "65534:65534", base}}, {1, {"chmod", "0777", base}}}) {
    auto planted = nodes_->OnNode(i, plant);
    ASSERT_TRUE(planted.ok() && planted->exit_code == 0)
        << (planted.ok() ? planted->output : planted.error());
  }
  const std::vector<std::pair<std::string, std::string>> planted = {
      {nodes_->Addresses()[0], base + " is owned by uid 65534 with mode 700, not by root"},
      {nodes_->Addresses()[1], base + " is owned by uid 0 with mode 777, not by root"}};
  for (const auto& [node, line] : planted) {
    TempDir dir;
    std::string out;
    EXPECT_EQ(RunLocksmith(dir.path(),
                           {"run", "--store", "store", "--time-limit", "2", "--provider", "ssh",
                            "--nodes", node, "--ssh-key", nodes_->Key(), "--ssh-known-hosts",
                            nodes_->KnownHosts()},
                           seconds(60), &out),
              255)
        << out;
    const std::string refusal = "node " + node + ": " + line;
    const size_t at = out.find(refusal);
    ASSERT_NE(at, std::string::npos) << out;
    EXPECT_EQ(out.substr(at, out.find('\n', at) - at),
              refusal + " with mode 0700 (another user may have made it): remove it and run again")
        << out;
    EXPECT_EQ(RunLocksmith(dir.path(),
                           {"cleanup", "--provider", "ssh", "--nodes", node, "--ssh-key",
                            nodes_->Key(), "--ssh-known-hosts", nodes_->KnownHosts()},
                           seconds(60), &out),
              255)
        << out;
    EXPECT_NE(out.find(line), std::string::npos) << out;
  }
  // Nothing was written into the planted directories.
  for (size_t i : {0, 1}) {
    auto files = nodes_->OnNode(i, {"ls", "-A", base});
    ASSERT_TRUE(files.ok());
    EXPECT_EQ(files->output, "") << "node " << i;
  }
}

TEST_F(SshProviderTest, CleanupRemovesWhatAKilledRunLeftOnTheNodes) {
  TempDir dir;
  LocksmithProcess run(dir.path(), Ssh({"run", "--store", "store", "--time-limit", "30",
                                        "--backend", "redis"}));
  std::string run_dir;
  for (int i = 0; i < 600 && run_dir.empty(); ++i) {
    std::error_code ec;
    if (fs::exists(dir.path() + "/store/latest", ec)) run_dir = LatestRun(dir.path() + "/store");
    if (run_dir.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(run_dir.empty()) << run.Stdout() << run.Stderr();
  ASSERT_TRUE(WaitForText(run_dir + "/locksmith.log", "servers up", seconds(60)))
      << ReadText(run_dir + "/locksmith.log");
  const std::string tag = RunTag(run_dir);
  ASSERT_FALSE(tag.empty());
  run.Signal(SIGKILL);
  (void)run.Wait(seconds(10));
  auto left = nodes_->OnNode(0, {"test", "-d", std::string(kSshBaseDir) + "/" + tag});
  ASSERT_TRUE(left.ok() && left->exit_code == 0) << "the killed run left no directory on n1";
  std::string out;
  EXPECT_EQ(RunLocksmith(dir.path(),
                         {"cleanup", "--provider", "ssh", "--nodes", nodes_->NodesFlag(),
                          "--ssh-key", nodes_->Key(), "--ssh-known-hosts", nodes_->KnownHosts(),
                          "--tag", tag},
                         seconds(60), &out),
            0)
      << out;
  EXPECT_NE(out.find("killed pid"), std::string::npos) << out;
  ExpectNodesClean(tag);
}

}  // namespace
}  // namespace locksmith::testing
