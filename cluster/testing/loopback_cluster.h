// CreateLoopbackCluster (test-only): a LocalCluster of `node_names` on
// loopback ports (no root, no namespaces), its nodes' and state directories
// under `dir`: the cluster the server tests start their servers on.
// Thread-safety is LocalCluster's.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cluster/local_cluster.h"

namespace locksmith::testing {

inline Result<std::unique_ptr<Cluster>> CreateLoopbackCluster(
    const std::string& dir, std::vector<std::string> node_names) {
  LocalClusterOptions o;
  o.node_names = std::move(node_names);
  o.nodes_dir = dir + "/nodes";
  o.state_dir = dir + "/state";
  o.force_loopback = true;
  return CreateLocalCluster(o);
}

}  // namespace locksmith::testing
