// ServerSetService: the part every service whose nodes are processes it
// starts itself shares (Redis, Sentinel, ZooKeeper, etcd, MariaDB,
// PostgreSQL): its ServerSet and node table, the LockService answers that
// follow from them (its name, the table, the servers' password kept
// secret, Stop), the Killable / Pausable / HasNodeProcesses steps on a
// named node, a fixed primary (the table's one primary node; none when
// several independent masters all are), and one start sequence
// (StartServers: hosts and ports checked, every server spawned and awaited
// within one deadline, then a leader awaited where the service elects
// one), with its errors worded here once. A service overrides only where
// its servers need more (PostgreSQL's children, an elected leader:
// LeaderElectedService).
//
// Thread-safety: as ServerSet: the set and the table are fixed once the
// service is built; every step may then be called from any thread. Start
// (and so StartServers) and Stop run on the run thread only.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend_registry.h"
#include "backends/lock_service.h"
#include "backends/server_set.h"
#include "base/random_secret.h"
#include "base/result.h"

namespace locksmith {

// The first `count` of `hosts` (all of them when there are fewer): where a
// service of one server per host puts its servers.
std::vector<Host*> FirstHosts(const std::vector<Host*>& hosts, int count);
// The nodes of `nodes` servers running `program`, one on each of the first
// hosts of `hosts` at its ServicePort(preferred_port), each the primary of
// its own data (no replication): node names are the hosts' (pure).
NodeTable PrimaryPerHost(const std::vector<Host*>& hosts, int nodes, const std::string& program,
                         int preferred_port);

// The run's part of a service's options, taken the same way by every
// backend whose servers want a password: a new one (NewServerPassword, never
// drawn from the run's seed), the clients' deadline, the client the run
// chose (none chosen: the backend's default stays) and --fencing.
template <typename Options>
Status TakeRunSettings(Options& options, const BackendContext& context) {
  auto password = NewServerPassword();
  if (!password) return Error{password.error()};
  options.password = *password;
  options.client_timeout = context.client_timeout;
  if (!context.client.empty()) options.client = context.client;
  options.fencing = context.fencing;
  return OkStatus();
}

class ServerSetService : public LockService,
                         public Killable,
                         public Pausable,
                         public HasPrimary,
                         public HasNodeProcesses {
 public:
  std::string Backend() const override { return backend_; }
  NodeTable Table() const override { return table_; }
  std::vector<std::string> Secrets() const override;
  // Stops every server (ServerSet::StopAll).
  void Stop() override;

  // The table's one node in the primary role; an error when it has none,
  // or several (independent masters: none leads).
  Result<std::string> Primary() override;
  bool Promotes() const override { return false; }

  Status KillNode(const std::string& node) override;
  // The node's server started again by Relaunch (an error for an unknown name).
  Status StartNode(const std::string& node) override;
  bool IsUp(const std::string& node) override;
  Status PauseNode(const std::string& node) override;
  Status ResumeNode(const std::string& node) override;
  std::optional<NodeProcess> ProcessOf(const std::string& node) override;

  // How long the last StartServers took until every server answered (and
  // one led), its prepare step included; 0 before.
  std::chrono::milliseconds ready_after() const {
    return std::chrono::milliseconds(ready_after_ms_.load());
  }

 protected:
  // How a service's servers come up (StartServers). Every function gets a
  // server's index in start order.
  struct StartPlan {
    std::string backend;  // "the BACKEND backend needs N hosts"
    int hosts = 1;        // the hosts it needs
    // Ports a server needs beyond its table port (etcd's peer port); a 0
    // is a port its host could not give. Empty: none.
    std::function<std::vector<int>(size_t)> more_ports;
    // Before any server spawns (an install, initdb); its time counts in
    // ready_after but not against ready_timeout. Empty: nothing.
    std::function<Status()> prepare;
    std::function<ServerLaunch(size_t)> launch_of;
    std::function<ReadinessProbe(size_t)> probe_of;
    // Once every server answers, asked every `leader_poll` until it names a
    // leader; `group` names the quorum in the error ("the etcd cluster").
    // Empty: no leader is awaited.
    std::function<Result<std::string>()> leader;
    std::chrono::milliseconds leader_poll{50};
    std::string group;
    std::chrono::milliseconds ready_timeout{20000};
  };

  // How the service and its servers are named, and what they keep secret.
  struct Naming {
    std::string backend;   // Backend(): "redis"
    std::string kind;      // one server in messages: "redis node" (ServerSet)
    std::string plural;    // the list of them: "nodes"
    std::string password;  // the servers' own, one of Secrets(); "" for none
  };
  explicit ServerSetService(Naming naming);

  // A server and its node, at the end of the start order (construction only).
  ServerProcess& AddServer(ServerProcessOptions options);

  // Starts the server at `index` (start order) again after a kill.
  virtual Status Relaunch(size_t index) = 0;

  // Checks the hosts and ports, runs prepare, spawns every server, awaits
  // each with probe_of, then the leader, all within ready_timeout of the
  // spawns; on success ready_after() is how long it took.
  Status StartServers(const StartPlan& plan);

  // "the BACKEND backend needs N hosts, the cluster has M" while the set
  // holds fewer than `servers` servers (one per host where that is all
  // `hosts` says, so M counts the hosts the servers are on).
  Status NeedHosts(const std::string& backend, int hosts, size_t servers) const;
  // "NODE: its host has no free port left" for the first server whose table
  // port, or one of more_ports(index), is 0.
  Status NeedPorts(const std::function<std::vector<int>(size_t)>& more_ports = {}) const;
  // Tries `ask` every `poll` until it passes, or `give_up` passes: then its
  // last error. Tried at least once.
  static Status PollUntil(const std::function<Status()>& ask,
                          std::chrono::steady_clock::time_point give_up,
                          std::chrono::milliseconds poll);

  const std::string backend_;
  const std::string password_;
  ServerSet servers_;  // fixed at construction, in start order
  NodeTable table_;    // the servers' nodes, as built (AddServer)
  std::atomic<int64_t> ready_after_ms_{0};
};

}  // namespace locksmith
