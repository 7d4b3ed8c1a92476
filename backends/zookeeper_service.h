// ZookeeperService: the `zookeeper` backend's servers -- an ensemble of
// `nodes` ZooKeeper peers (3 by default, odd), one per host, from Debian's
// zookeeper package. Each peer is the JVM itself (java ... QuorumPeerMain
// zoo.cfg, what `zkServer.sh start-foreground` would exec), spawned through
// Host::Spawn with an argv, so the pid the service holds is the server's own
// and SIGKILL / SIGSTOP reach it directly. Ready when every peer answers srvr
// with a mode and one of them is the leader.
//
// A peer's files live in its host's directory (Host::Directory()):
// zoo.cfg, zookeeper.log (the JVM's stdout and stderr) and zk-data/ (myid and
// the transaction log, kept across a kill: a restarted peer recovers from it,
// as a real one would).
//
// Capabilities: Killable (kill nemesis), Pausable (SIGSTOP / SIGCONT),
// HasPrimary (the peer whose srvr says "Mode: leader" now) and HasClocks (the
// JVM's System.currentTimeMillis goes through clock_gettime, so the host's
// clock shim moves it; a peer tells its clock through the establishment time
// `cons` shows for a fresh session, see ZkWallClockNs). Table() gives the
// current leader the primary role and the others zk-peer, so the `primary`
// fault target hits the leader of the moment.
//
// Thread-safe: Start/Stop come from the run thread, the capability calls from
// the nemesis thread, NewClient from the io thread, Table() from any. Each
// peer guards its own process state (ServerProcess); the leader cache guards
// itself. Neither is held while a peer is polled (seconds).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "backends/backend_registry.h"
#include "backends/leader_elected_service.h"
#include "backends/lock_service.h"
#include "backends/server_process.h"
#include "cluster/host.h"

namespace locksmith {

// The role of every ZooKeeper ensemble member in the node table (the leader
// shows as kPrimaryRole once elected).
inline constexpr char kZkPeerRole[] = "zk-peer";

// The zookeeper backend's options (config keys "zk_nodes", "zk_tick_ms",
// "session_timeout_ms", "zk_min_session_ms", "zk_max_session_ms",
// "zk_heap_mb"); client_timeout and ready_timeout come from the run, the
// lock client (--client, ZkRecipeNames()) from the run's choice.
struct ZookeeperServiceOptions {
  int nodes = 3;
  int64_t tick_ms = 250;                 // tickTime: heartbeats, init/sync limits
  int64_t session_timeout_ms = 2000;     // what clients ask for
  int64_t min_session_ms = 500;          // the server's bounds on the timeout
  int64_t max_session_ms = 60000;
  int64_t heap_mb = 192;                 // -Xmx of each peer's JVM
  std::chrono::milliseconds client_timeout{500};
  std::chrono::milliseconds ready_timeout{30000};

  void Declare(OptionSet& set);
};

// The `zookeeper` backend from its options (OptionsOf<ZookeeperServiceOptions>).
// The hosts it needs: one per peer (--zk-nodes).
int ZookeeperHosts(const ModuleOptions& options);
Result<std::unique_ptr<LockService>> MakeZookeeperService(const ModuleOptions& options,
                                                          const BackendContext& context);

// Where one peer listens (pure data; exposed for tests).
struct ZkPeerAddress {
  int id = 0;  // myid: 1..N
  std::string address;
  int client_port = 0;
  int quorum_port = 0;
  int election_port = 0;
};

// The zoo.cfg of peer `self` of `peers` (pure; exposed for tests).
std::string ZookeeperConfigText(const ZookeeperServiceOptions& options,
                                 const std::vector<ZkPeerAddress>& peers, int self,
                                 const std::string& data_dir);

// The argv that runs one peer in the foreground (pure; exposed for tests).
std::vector<std::string> ZookeeperArgv(const ZookeeperServiceOptions& options,
                                       const std::string& config_path,
                                       const std::string& log_dir);

// "addr:port,addr:port,..." of every peer's client port: the connect string.
std::string ZkConnectString(const std::vector<ZkPeerAddress>& peers);

class ZookeeperService : public LeaderElectedService, public HasClocks {
 public:
  ZookeeperService(Cluster& cluster, ZookeeperServiceOptions options, std::string client);

  // zk-peer, and primary for the leader of the moment.
  std::vector<NodeRoleSpec> Roles() const override;
  nlohmann::json Settings() const override;
  Status Start() override;
  std::unique_ptr<LockClient> NewClient(boost::asio::any_io_executor executor,
                                        const ClientSlot& slot) override;

  Host* NodeHost(const std::string& node) override;
  Result<int64_t> WallClockNs(const std::string& node) override;

  const std::vector<ZkPeerAddress>& Peers() const { return peers_; }

 private:
  // StartNode: starts a peer that is down; ready when it answers srvr at all: a peer
  // cut off from the others (a partition, or too few peers up) cannot join
  // a quorum until they are back, and a restart must not wait for that.
  Status Relaunch(size_t index) override;
  // What one start of peer `index` (0-based, table order) writes and runs:
  // zk-data/myid, zoo.cfg, the JVM.
  ServerLaunch LaunchOf(size_t index) const;
  // Ready once the peer at `peer` answers srvr; with `in_quorum`, with a
  // mode (it has joined a quorum).
  static ReadinessProbe ServingProbe(const ZkPeerAddress& peer, bool in_quorum);
  // The peer whose srvr mode is leader or standalone (every zk-peer else).
  Result<std::string> AskLeader() const override;
  // The srvr mode of every peer now ("" for a peer that does not answer).
  std::vector<std::string> Modes() const;

  const ZookeeperServiceOptions options_;
  const std::string client_;
  std::vector<ZkPeerAddress> peers_;  // fixed at construction, in table order
};

}  // namespace locksmith
