// ServerSet: every server process of one service (ServerProcess), in start
// order, found by node name; the Killable / Pausable steps on a named node
// (kill, pause, resume, is-up) and HasNodeProcesses's question go through
// it, so an unknown name gets the same kind of answer from every backend.
//
// Thread-safety: Add only while the service is built (before any other
// call); afterwards the set is fixed and every method may be called from
// any thread (each ServerProcess guards its own state).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/lock_service.h"
#include "backends/server_process.h"
#include "base/result.h"
#include "cluster/host.h"

namespace locksmith {

class ServerSet {
 public:
  // `kind` names one server in messages ("redis node"), `plural` the list
  // of names ("nodes"): "no redis node n7 (nodes: n1, n2)".
  ServerSet(std::string kind, std::string plural);

  ServerProcess& Add(ServerProcessOptions options);

  // The server of node `name`, or nullptr.
  ServerProcess* Find(const std::string& name) const;
  // The server of node `name`, or an error naming every node.
  Result<ServerProcess*> FindOrError(const std::string& name) const;
  // Its position in start order (a service's tables of its own follow it).
  Result<size_t> IndexOf(const std::string& name) const;
  // The host node `name` runs on, or nullptr.
  Host* HostOf(const std::string& name) const;

  // ServerProcess's steps on node `name` (an error for an unknown name;
  // IsUp: false).
  Status Kill(const std::string& name) const;
  Status Pause(const std::string& name) const;
  Status Resume(const std::string& name) const;
  bool IsUp(const std::string& name) const;
  // The process of node `name` while it runs (HasNodeProcesses); nullopt
  // while it is down or for an unknown name.
  std::optional<NodeProcess> ProcessOf(const std::string& name) const;
  // Stops every server, the last started first (a service's watchers, such
  // as sentinels, go before what they watch and start no failover).
  void StopAll() const;
  // Spawns every server with launch_of(index), then awaits each with
  // probe_of(index) until `give_up`: the servers of a quorum answer only
  // once enough of them run, so none is awaited before all are spawned.
  Status SpawnAllThenAwait(const std::function<ServerLaunch(size_t)>& launch_of,
                           const std::function<ReadinessProbe(size_t)>& probe_of,
                           std::chrono::steady_clock::time_point give_up) const;

  // Every server, in start order.
  const std::vector<std::unique_ptr<ServerProcess>>& all() const { return servers_; }
  size_t size() const { return servers_.size(); }

 private:
  const std::string kind_;
  const std::string plural_;
  std::vector<std::unique_ptr<ServerProcess>> servers_;
};

}  // namespace locksmith
