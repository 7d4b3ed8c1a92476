// ServerSetService: the part every service whose nodes are processes it
// starts itself shares (Redis, Sentinel, ZooKeeper, etcd, MariaDB,
// PostgreSQL): its ServerSet, the Killable / Pausable / HasNodeProcesses
// steps on a named node through it, and the start of a quorum that must
// elect a leader. A service overrides a step only where its servers need
// more (PostgreSQL's children, a leader cache to forget).
//
// Thread-safety: as ServerSet: the set is fixed once the service is built;
// every step may then be called from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "backends/lock_service.h"
#include "backends/server_set.h"
#include "base/result.h"

namespace locksmith {

class ServerSetService : public LockService,
                         public Killable,
                         public Pausable,
                         public HasPrimary,
                         public HasNodeProcesses {
 public:
  Status KillNode(const std::string& node) override;
  // The node's server started again by Relaunch (an error for an unknown name).
  Status StartNode(const std::string& node) override;
  bool IsUp(const std::string& node) override;
  Status PauseNode(const std::string& node) override;
  Status ResumeNode(const std::string& node) override;
  std::optional<NodeProcess> ProcessOf(const std::string& node) override;

 protected:
  // `kind` and `plural` name a server and the list of them in messages
  // (ServerSet).
  ServerSetService(std::string kind, std::string plural);

  // Starts the server at `index` (start order) again after a kill.
  virtual Status Relaunch(size_t index) = 0;

  // "the BACKEND backend needs N hosts, the cluster has M" while the set
  // holds fewer than `nodes` servers.
  Status NeedHosts(const std::string& backend, int nodes) const;

  // Spawns every server, awaits each with probe_of, then asks `leader`
  // every `poll` until it names one, all within `ready_timeout` (`group`
  // names the quorum in the error: "the etcd cluster"); on success
  // `ready_after_ms` is how long it took.
  Status SpawnAllThenAwaitLeader(const std::function<ServerLaunch(size_t)>& launch_of,
                                 const std::function<ReadinessProbe(size_t)>& probe_of,
                                 const std::function<Result<std::string>()>& leader,
                                 std::chrono::milliseconds poll, const std::string& group,
                                 std::chrono::milliseconds ready_timeout,
                                 std::atomic<int64_t>& ready_after_ms);

  ServerSet servers_;  // fixed at construction, in start order
};

}  // namespace locksmith
