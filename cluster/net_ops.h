// NetOps: every operation of a local cluster that touches the kernel's
// network: iproute2 commands (namespaces, the bridge, veth pairs, addresses),
// iptables commands inside a node's namespace, nft commands on the run's own
// guard table in the controller's namespace, and the queries creation and
// cleanup make. RealNetOps() runs `ip`, `iptables` and `nft` (always via argv);
// testing::FakeNet interprets the same commands in memory, so lifecycle and
// partition logic are unit-tested without root. Commands are iproute2 /
// iptables argument lists, so the fake checks what the real one would run.
// Implementations are thread-safe.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "base/result.h"

namespace locksmith {

class NetOps {
 public:
  virtual ~NetOps() = default;
  // Runs `ip <args>` in the controller's namespace (args may start with
  // `-n <netns>`); an error names the command, exit code and output.
  virtual Status Ip(const std::vector<std::string>& args) = 0;
  // Runs `iptables <args>` inside the named namespace; never in the
  // controller's own (an empty name is refused).
  virtual Status Iptables(const std::string& netns, const std::vector<std::string>& args) = 0;

  // Runs `nft <args>` in the controller's namespace; callers name only the
  // runs' own tables (GuardTableName), never another.
  virtual Status Nft(const std::vector<std::string>& args) = 0;
  // The names of the controller's nftables tables of family inet; empty
  // where nft cannot list them (not root, nft missing).
  virtual std::vector<std::string> ListInetTables() = 0;

  virtual bool NetnsExists(const std::string& name) = 0;
  // In the controller's namespace.
  virtual bool LinkExists(const std::string& name) = 0;
  // Namespace names, and link names in the controller's namespace, sorted.
  virtual std::vector<std::string> ListNetns() = 0;
  virtual std::vector<std::string> ListLinks() = 0;
  // The IPv4 addresses of the controller's interfaces (dotted, no prefix).
  virtual std::set<std::string> Addresses() = 0;
};

// The machine's kernel (see net_setup.h). Thread-safe (no state).
NetOps& RealNetOps();

}  // namespace locksmith
