// SshCluster: the ssh cluster provider. Each host of the run is a node
// given with --nodes (a machine, a container, or a network namespace running
// sshd), in order: the run's i-th host on the i-th node. At creation it
// resolves every node's address (clients on the controller connect there),
// opens one control connection per node (ssh ControlMaster, its socket in a
// new private directory of the controller, from mkdtemp) that every later
// command reuses, makes the run's directory <base>/<tag>/ on each node
// (refusing, in one line, a base directory another user could have made:
// cluster/ssh_scripts.h), and installs the Debian packages the servers need
// where they are missing (apt-get). Lock
// clients run on the controller and share its address (the one it reaches
// the nodes from), so a partition of a client from a node drops the
// controller's address there, sparing the ssh port.
//
// Teardown (also run by the destructor) kills on every node the processes
// the run started (pid and start time from the run's pid files), removes the
// run's iptables chains (LSM-<tag>-*), copies each host's top-level files
// (configs, logs) into <nodes_dir>/<host>/ on the controller, removes the
// run's directory and closes the control connections. CleanupSshLeftovers
// does the same for what a killed run left, found by its tag.
// Thread-safe: hosts and Teardown may be used from any thread.
#pragma once

#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

#include "cluster/cleanup.h"
#include "cluster/host.h"
#include "cluster/ssh_command.h"
#include "cluster/ssh_host.h"

namespace locksmith {

struct SshClusterOptions {
  std::string tag;                      // 6 chars of [0-9a-z]; empty: random
  std::vector<std::string> host_names;  // the run's hosts (see ValidateNodeName)
  std::vector<std::string> nodes;       // at least as many as host_names
  SshOptions ssh;
  std::string nodes_dir;                // logs are fetched to <nodes_dir>/<host>/
  std::vector<std::string> packages;    // Debian packages every node must have
};

Result<std::unique_ptr<Cluster>> CreateSshCluster(const SshClusterOptions& options);

// A private directory of the controller for the control sockets (their paths
// must stay short): /tmp/lsm-ssh-<tag>-<pid>-XXXXXX made new by mkdtemp, mode
// 0700, never a directory or link someone else made first. An error of one
// line when it cannot be made.
Result<std::string> MakeSshControlDir(const std::string& tag);

// The Debian packages of the tools the provider itself runs on a node
// (iptables, ss, ps, tar); a run adds its backend's server packages.
std::vector<std::string> SshProviderPackages();

class SshCluster : public Cluster {
 public:
  ~SshCluster() override;  // Teardown(), errors dropped

  const std::string& Tag() const override { return tag_; }
  std::vector<Host*> Hosts() override;
  Host* FindHost(const std::string& name) override;
  // The controller's address as the nodes see it, for every client.
  std::string ClientAddress(int index) override;
  Status Teardown() override;

 private:
  friend Result<std::unique_ptr<Cluster>> CreateSshCluster(const SshClusterOptions& options);
  SshCluster(std::string tag, std::string control_dir, std::string nodes_dir, SshOptions ssh);

  Status FetchLogs(SshHost& host);

  const std::string tag_;
  const std::string control_dir_;
  const std::string nodes_dir_;
  const SshOptions ssh_;
  std::string controller_address_;
  std::vector<std::unique_ptr<SshHost>> hosts_;
  std::mutex teardown_mu_;
  bool torn_down_ = false;
};

struct SshCleanupOptions {
  std::vector<std::string> nodes;
  SshOptions ssh;
  // Only this run; empty: every run on the nodes whose controller was this
  // machine and has ended (a run of another controller is only reported).
  std::string only_tag;
};

// `locksmith cleanup --provider ssh`: on every node, kills the processes of
// dead runs, removes their chains and directories; one line per removal.
CleanupReport CleanupSshLeftovers(std::ostream& out, const SshCleanupOptions& options);

}  // namespace locksmith
