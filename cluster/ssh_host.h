// SshHost: one host of an SshCluster, a machine (or container, or a network
// namespace running sshd) reached with the OpenSSH client over the node's
// control connection. Every operation is one ssh command: an argv vector on
// the controller whose remote command line is built by RemoteCommandLine
// (each word quoted), running a fixed script with its input as positional
// parameters. The host's directory is <base>/<tag>/<host> on the node.
// Spawn starts the server under `setsid -f` through a small wrapper that
// records "pid start-time" in a new file <base>/<tag>/.pids-<host>.XXXXXX
// (what teardown and `locksmith cleanup --provider ssh` kill, pid by pid,
// when the start time still matches), prints both and execs the server with
// a clean environment. Signal, Kill and Alive act on a pid only while it
// still has that start time, as the local provider does: a pid the kernel
// gave to another process is never touched. Files written through WriteFile
// go over the ssh channel's standard input into new files (cluster/
// ssh_scripts.h). With a --ssh-user other than root, every remote command
// runs under `sudo -n`.
// Thread-safe: the pid map and the spawn environment have their own mutex;
// ssh commands run concurrently over the shared control connection.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "cluster/host.h"
#include "cluster/ssh_command.h"
#include "cluster/ssh_process.h"

namespace locksmith {

// Where runs keep their files on a node: under a directory only root can
// change, made by the run itself with mode 0700 (cluster/ssh_scripts.h
// refuses it otherwise). Exposed for cleanup.
inline constexpr char kSshBaseDir[] = "/var/lib/locksmith";

class SshHost : public Host {
 public:
  // `node`: what ssh connects to (host name or address); `address`: its
  // IPv4 address, which clients use; `run_dir`: <base>/<tag> on the node.
  SshHost(std::string name, std::string node, std::string address, std::string run_dir,
          std::string tag, SshOptions options, std::string control_path);

  const std::string& Name() const override { return name_; }
  const std::string& Address() const override { return address_; }
  int ServicePort(int preferred) override { return preferred; }
  bool HasOwnNetwork() const override { return true; }
  int ControlPort() const override { return options_.port; }
  const std::string& Directory() const override { return dir_; }
  Status WriteFile(const std::string& path, std::string_view content) override;
  Status RemoveFile(const std::string& path) override;
  Result<std::string> ReadFile(const std::string& path, size_t max_bytes) override;
  Status MakeDirectory(const std::string& path) override;
  // Copies the controller's file to <dir>/.lib/<name> on the node.
  Result<std::string> InstallFile(const std::string& local_path,
                                  const std::string& name) override;
  Status SetSpawnEnv(const std::string& entry) override;
  std::vector<std::string> SpawnEnv() const override;
  Result<int> Spawn(const ProcessSpec& spec) override;
  Status Signal(int pid, int signal) override;
  Status Kill(int pid) override;
  bool Alive(int pid) override;
  Result<ExecResult> Exec(const std::vector<std::string>& argv,
                          std::chrono::milliseconds timeout) override;
  // `ss -K` on the node, sparing the control connection's own port.
  Status AbortConnections(const std::set<std::string>& peers,
                          std::chrono::milliseconds timeout) override;

  // The node as given (--nodes).
  const std::string& Node() const { return node_; }
  // Runs `sh -c script sh args...` on the node (stdin: `input`). Errors:
  // ssh could not run it (exit 255 is ssh's own) or it overran `timeout`.
  Result<ProcessOutput> RunScript(const std::string& script, const std::vector<std::string>& args,
                                  std::string_view input, std::chrono::milliseconds timeout);
  // The spawn wrapper's argv (on the node) for `spec` with the host's
  // environment; for tests of command construction.
  Result<std::vector<std::string>> SpawnArgv(const ProcessSpec& spec) const;
  // The ssh argv on the controller that runs `remote` on the node.
  std::vector<std::string> SshArgv(const std::vector<std::string>& remote) const;

 private:
  Status Check(const Result<ProcessOutput>& r, const std::string& what) const;
  // The start time the wrapper printed for `pid`; an error for a pid this
  // host did not start.
  Result<std::string> StartTimeOf(int pid);

  const std::string name_;
  const std::string node_;
  const std::string address_;
  const std::string run_dir_;
  const std::string dir_;
  const std::string tag_;
  const SshOptions options_;
  const std::string control_path_;
  mutable std::mutex mu_;
  std::map<int, uint64_t> started_;  // pid -> start time (clock ticks after boot)
  std::vector<std::string> spawn_env_;
};

}  // namespace locksmith
