#include "tests/sshd_nodes.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "cluster/local_cluster.h"
#include "cluster/local_host.h"
#include "cluster/process_supervisor.h"
#include "cluster/ssh_command.h"
#include "cluster/ssh_host.h"
#include "cluster/ssh_process.h"

namespace locksmith::testing {
namespace fs = std::filesystem;
namespace {

Status Run(const std::vector<std::string>& argv) {
  auto r = RunCommand(argv, "", std::chrono::seconds(30));
  if (!r) return Error{r.error()};
  if (r->exit_code != 0) return Error{argv[0] + " exited " + std::to_string(r->exit_code) + ": " +
                                      r->output};
  return OkStatus();
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

Result<std::unique_ptr<SshdNodes>> SshdNodes::Start(int count, const std::string& dir) {
  if (geteuid() != 0) return Error{"sshd nodes need root (network namespaces)"};
  if (!fs::exists("/usr/sbin/sshd")) return Error{"/usr/sbin/sshd is missing (openssh-server)"};
  std::unique_ptr<SshdNodes> nodes(new SshdNodes());
  nodes->key_ = dir + "/id_ed25519";
  nodes->known_hosts_ = dir + "/known_hosts";
  const std::string host_key = dir + "/host_ed25519";
  for (const auto& key : {nodes->key_, host_key}) {
    if (Status s = Run({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "locksmith-test",
                        "-f", key});
        !s) {
      return Error{s.error()};
    }
  }
  fs::copy_file(nodes->key_ + ".pub", dir + "/authorized_keys");
  {
    std::ofstream config(dir + "/sshd_config");
    config << "Port 22\nListenAddress 0.0.0.0\nHostKey " << host_key
           << "\nAuthorizedKeysFile " << dir << "/authorized_keys\n"
           << "PermitRootLogin prohibit-password\nPubkeyAuthentication yes\n"
              "PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\n"
              "StrictModes no\nPidFile none\nMaxSessions 64\nMaxStartups 64:30:128\n"
              "LogLevel ERROR\n";
  }
  std::ofstream(dir + "/empty_bashrc").close();
  std::error_code ec;
  fs::create_directories("/run/sshd", ec);  // sshd's privilege separation directory
  // The mount point of the nodes' own base directories: what a real run on
  // this machine would make (root, 0700), never used by the nodes.
  if (!fs::exists(kSshBaseDir, ec) && !fs::create_directory(kSshBaseDir, ec)) {
    return Error{std::string("cannot create ") + kSshBaseDir + ": " + ec.message()};
  }
  fs::permissions(kSshBaseDir, fs::perms::owner_all, fs::perm_options::replace, ec);
  LocalClusterOptions options;
  for (int i = 1; i <= count; ++i) options.node_names.push_back("s" + std::to_string(i));
  options.nodes_dir = dir + "/sshd-nodes";
  auto cluster = CreateLocalCluster(options);
  if (!cluster) return Error{cluster.error()};
  nodes->cluster_ = std::move(*cluster);
  for (Host* host : nodes->cluster_->Hosts()) {
    nodes->addresses_.push_back(host->Address());
    nodes->netns_.push_back(static_cast<LocalHost*>(host)->NetnsName());
    // sshd runs the remote commands through root's login shell, which
    // (bash) reads /root/.bashrc first: on a developer's machine that can
    // take seconds per command. In a mount namespace of its own the test's
    // sshd sees an empty one instead, and a fresh base directory; the
    // machine's files are untouched.
    ProcessSpec spec;
    spec.argv = {"unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c",
                 "empty=$1; base=$2; shift 2; if [ -f /root/.bashrc ]; then "
                 "mount --bind \"$empty\" /root/.bashrc || exit 1; fi; "
                 "mount -t tmpfs -o mode=0700,uid=0,gid=0 lsm-node-base \"$base\" || exit 1; "
                 "exec \"$@\"",
                 "sh", dir + "/empty_bashrc", kSshBaseDir, "/usr/sbin/sshd", "-D", "-e", "-f",
                 dir + "/sshd_config"};
    spec.log_path = host->PathOf("sshd.log");
    auto pid = host->Spawn(spec);
    if (!pid) return Error{pid.error()};
    nodes->sshd_pids_.push_back(*pid);
  }
  // Every node answers a command before the test goes on.
  SshOptions ssh;
  ssh.key = nodes->key_;
  ssh.known_hosts = nodes->known_hosts_;
  ssh.connect_timeout_s = 2;
  for (const auto& address : nodes->addresses_) {
    std::string last;
    bool up = false;
    for (int attempt = 0; attempt < 100 && !up; ++attempt) {
      std::vector<std::string> argv = {"ssh"};
      for (auto& a : SshCommonArgs(ssh, "none")) argv.push_back(a);
      argv.insert(argv.end(), {"--", address, "true"});
      auto r = RunSshProcess(argv, "", std::chrono::seconds(5));
      up = r.ok() && r->exit_code == 0;
      if (!up) {
        last = r.ok() ? r->err : r.error();
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
    if (!up) return Error{"sshd on " + address + " does not answer: " + last};
  }
  return nodes;
}

SshdNodes::~SshdNodes() {
  if (cluster_) (void)cluster_->Teardown();
}

std::string SshdNodes::NodesFlag() const {
  std::string flag;
  for (const auto& a : addresses_) flag += (flag.empty() ? "" : ",") + a;
  return flag;
}

std::vector<std::string> SshdNodes::Flags() const {
  return {"--provider", "ssh", "--nodes", NodesFlag(), "--ssh-key", key_, "--ssh-known-hosts",
          known_hosts_};
}

std::vector<std::string> SshdNodes::Strays(size_t i) const {
  std::vector<std::string> strays;
  auto pids = RunCommand({"ip", "netns", "pids", netns_[i]}, "", std::chrono::seconds(10));
  if (pids.ok()) {
    std::istringstream in(pids->output);
    int pid = 0;
    while (in >> pid) {
      if (pid == sshd_pids_[i]) continue;
      const std::string stat = Slurp("/proc/" + std::to_string(pid) + "/stat");
      const size_t close = stat.rfind(')');
      if (close == std::string::npos || stat.substr(close + 2, 1) == "Z") continue;
      std::string cmd = Slurp("/proc/" + std::to_string(pid) + "/cmdline");
      for (char& c : cmd) {
        if (c == '\0') c = ' ';
      }
      // sshd's own per-connection processes are not the run's.
      if (cmd.rfind("sshd:", 0) == 0) continue;
      strays.push_back("pid " + std::to_string(pid) + ": " + cmd);
    }
  }
  auto rules = RunCommand({"ip", "netns", "exec", netns_[i], "iptables", "-w", "-S"}, "",
                          std::chrono::seconds(10));
  if (rules.ok() && rules->output.find("LSM-") != std::string::npos) {
    strays.push_back("rules: " + rules->output);
  }
  auto files = OnNode(i, {"ls", "-A", kSshBaseDir});
  if (!files.ok() || files->exit_code != 0 || !files->output.empty()) {
    strays.push_back(std::string("in ") + kSshBaseDir + ": " +
                     (files.ok() ? files->output : files.error()));
  }
  return strays;
}

Result<ExecResult> SshdNodes::OnNode(size_t i, const std::vector<std::string>& argv) const {
  std::vector<std::string> in_node = {"nsenter", "--target", std::to_string(sshd_pids_[i]),
                                      "--mount", "--"};
  in_node.insert(in_node.end(), argv.begin(), argv.end());
  return RunCommand(in_node, "", std::chrono::seconds(10));
}

}  // namespace locksmith::testing
