// SshdNodes: test nodes for the ssh provider without Docker. A local
// cluster (network namespaces of this machine on a bridge of the test's
// own, 198.18.x addresses; root only) whose every host runs an sshd with a
// config, host key and authorized key generated into the test's temporary
// directory. Each sshd runs in a mount namespace of its own with an empty
// tmpfs (root, mode 0700) on the provider's base directory, so every node
// has a file system of its own there, as separate machines do, and a test
// may plant a hostile base on one node without touching this machine's.
// The machine's own sshd and firewall are never touched. The destructor
// stops the sshds (by pid, through the local cluster), which ends their
// mount namespaces, and removes the network namespaces and the bridge.
// Test-only; not thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "cluster/host.h"

namespace locksmith::testing {

class SshdNodes {
 public:
  // `count` nodes named s1..s<count>; files under `dir`.
  static Result<std::unique_ptr<SshdNodes>> Start(int count, const std::string& dir);
  ~SshdNodes();

  // The nodes' addresses, in order.
  const std::vector<std::string>& Addresses() const { return addresses_; }
  std::string NodesFlag() const;  // "198.18.x.2,198.18.x.3,..."
  const std::string& Key() const { return key_; }
  const std::string& KnownHosts() const { return known_hosts_; }
  // --provider ssh and the flags that reach these nodes.
  std::vector<std::string> Flags() const;
  // What runs in node i's namespace besides its sshd (pids with command
  // lines, zombies left out), the node's iptables rules naming LSM-, and
  // what its base directory holds.
  std::vector<std::string> Strays(size_t i) const;
  // Runs `argv` in node i's mount namespace (its own base directory) as
  // root, to inspect the node's files or plant some.
  Result<ExecResult> OnNode(size_t i, const std::vector<std::string>& argv) const;

 private:
  SshdNodes() = default;
  std::unique_ptr<Cluster> cluster_;
  std::vector<std::string> addresses_;
  std::vector<std::string> netns_;
  std::vector<int> sshd_pids_;
  std::string key_, known_hosts_;
};

}  // namespace locksmith::testing
