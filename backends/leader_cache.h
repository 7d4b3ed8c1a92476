// LeaderCache: the node a replicated service last saw leading (ZooKeeper's
// leader, etcd's), and when. Table() is asked often (every fault target's
// resolution, every report of the node roles) and finding the leader means
// asking every server, so a service probes at most once per `fresh_for` and
// forgets a leader it has just killed. Thread-safe; the probe runs without
// the lock held (it may take a server timeout).
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "backends/node_table.h"
#include "base/result.h"

namespace locksmith {

class LeaderCache {
 public:
  explicit LeaderCache(std::chrono::milliseconds fresh_for) : fresh_for_(fresh_for) {}

  // What a probe found ("" when no node leads), as of now.
  void Record(const std::string& leader);
  // Forgets `node` as the leader (it was killed), or any leader when empty.
  void Forget(const std::string& node = "");
  // The leader known, or `probe`'s answer when what is known is older than
  // fresh_for ("" when the probe found none).
  std::string Leader(const std::function<Result<std::string>()>& probe) const;

 private:
  const std::chrono::milliseconds fresh_for_;
  mutable std::mutex mu_;
  std::string leader_;  // guarded by mu_
  // When leader_ was recorded; none yet: not the clock's epoch, which on a
  // machine booted less than fresh_for ago would pass for fresh.
  std::optional<std::chrono::steady_clock::time_point> seen_;  // guarded by mu_
};

// `table` with `leader`'s node in the primary role (no change when it names
// none of them).
NodeTable WithPrimary(NodeTable table, const std::string& leader);

}  // namespace locksmith
