// EtcdService: the `etcd` backend's servers -- a cluster of `nodes` etcd
// members (3 by default, odd), one per host, from Debian's etcd-server
// package, each spawned through Host::Spawn with an argv (the etcd binary
// itself, so SIGKILL / SIGSTOP reach the server), with its peer and client
// URLs on its host's address and the initial cluster from the host table.
// Ready when every member answers /v3/maintenance/status and one of them
// leads.
//
// A member's files live in its host's directory (Host::Directory()):
// etcd.log (its stdout and stderr) and etcd-data/ (its write-ahead log and
// database, kept across a kill: a restarted member rejoins from them). Stop
// removes the log segments etcd preallocated (64 MB each), which would
// otherwise make every run's directory hundreds of MB.
//
// Capabilities: Killable, Pausable (SIGSTOP / SIGCONT), HasPrimary (the
// member whose status names itself as leader) and HasNodeProcesses.
// Not HasClocks: etcd is Go, and Go's runtime reads the wall and monotonic
// clocks through the vDSO itself, never through libc's clock_gettime, so the
// clock shim (an LD_PRELOAD of libc's functions) cannot move an etcd
// member's clock. Table() gives the current leader the primary role and the
// others etcd-member, so the `primary` fault target hits the leader of the
// moment.
//
// Thread-safety: Start/Stop come from the run thread, the capability calls
// from the nemesis thread, NewClient from the io thread, Table() from any.
// Each member guards its own process state (ServerProcess); the leader cache
// guards itself. Neither is held while a member is asked (up to a timeout).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "backends/backend_registry.h"
#include "backends/etcd_gateway.h"
#include "backends/leader_elected_service.h"
#include "backends/lock_service.h"
#include "backends/server_process.h"
#include "cluster/host.h"

namespace locksmith {

// The role of every etcd cluster member in the node table (the leader shows
// as kPrimaryRole once elected).
inline constexpr char kEtcdMemberRole[] = "etcd-member";

// The etcd backend's options (config keys "etcd_nodes", "etcd_heartbeat_ms",
// "etcd_election_ms"); client_timeout comes from the run.
struct EtcdServiceOptions {
  int nodes = 3;
  int64_t heartbeat_ms = 100;  // --heartbeat-interval
  int64_t election_ms = 1000;  // --election-timeout
  std::chrono::milliseconds client_timeout{500};
  std::chrono::milliseconds ready_timeout{30000};

  void Declare(OptionSet& set);
};

// The hosts it needs: one per member (--etcd-nodes).
int EtcdHosts(const ModuleOptions& options);
Result<std::unique_ptr<LockService>> MakeEtcdService(const ModuleOptions& options,
                                                     const BackendContext& context);

// Where one member listens (pure data; exposed for tests).
struct EtcdMemberAddress {
  std::string name;  // the node's name, also the member's --name
  std::string address;
  int client_port = 0;
  int peer_port = 0;
};

// "n1=http://addr:port,..." of every member's peer URL (pure).
std::string EtcdInitialCluster(const std::vector<EtcdMemberAddress>& members);
// The argv that runs member `self` of `members` (pure; exposed for tests).
std::vector<std::string> EtcdArgv(const EtcdServiceOptions& options,
                                  const std::vector<EtcdMemberAddress>& members, size_t self,
                                  const std::string& data_dir, const std::string& cluster_token);

class EtcdService : public LeaderElectedService {
 public:
  EtcdService(Cluster& cluster, EtcdServiceOptions options);

  // etcd-member, and primary for the leader of the moment.
  std::vector<NodeRoleSpec> Roles() const override;
  nlohmann::json Settings() const override;
  Status Start() override;
  // Stops every member, then removes the log segments they preallocated.
  void Stop() override;
  std::unique_ptr<LockClient> NewClient(boost::asio::any_io_executor executor,
                                        const ClientSlot& slot) override;

  const std::vector<EtcdMemberAddress>& Members() const { return members_; }

 private:
  // StartNode: starts a member that is down; ready when it answers at all: a member
  // cut off from the others cannot rejoin until they are back, and a
  // restart must not wait for that.
  Status Relaunch(size_t index) override;
  ServerLaunch LaunchOf(size_t index) const;
  ReadinessProbe AnswersProbe(size_t index) const;
  // The member whose status names itself leader (every etcd-member else).
  Result<std::string> AskLeader() const override;

  const EtcdServiceOptions options_;
  const std::string cluster_token_;
  std::vector<EtcdMemberAddress> members_;
};

}  // namespace locksmith
