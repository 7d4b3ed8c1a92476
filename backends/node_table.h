// NodeTable: the servers of a lock service as plain data, one ServiceNode
// per server process: its name, role, host, program and where clients reach
// it. Fault targets (primary, replicas, minority, majority, named nodes) and
// the service's description in config.json and the report are computed from
// it by pure functions, so they are tested without servers. Roles are as
// configured at start; who leads after a failover is HasPrimary's answer.
// Pure; thread-safe (values only).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace locksmith {

enum class NodeRole {
  kPrimary,   // a Redis master, the one a client writes to
  kReplica,   // a Redis replica
  kSentinel,  // a Redis Sentinel
  kZkPeer,    // a ZooKeeper ensemble member
  kEtcdMember,  // an etcd cluster member
};

// "primary", "replica", "sentinel", "zk-peer", "etcd-member".
std::string_view RoleName(NodeRole role);
std::optional<NodeRole> ParseRole(std::string_view name);

struct ServiceNode {
  std::string name;  // unique in the service; what faults name ("n1")
  NodeRole role = NodeRole::kPrimary;
  std::string host;     // Host::Name() of the host it runs on
  std::string process;  // the server program: "redis-server", "redis-sentinel", ...
  std::string address;  // where the controller's clients reach it
  int port = 0;

  bool operator==(const ServiceNode&) const = default;
};

using NodeTable = std::vector<ServiceNode>;

// Names in table order.
std::vector<std::string> NodeNames(const NodeTable& table);
// Names of the nodes with `role`, in table order.
std::vector<std::string> NodesWithRole(const NodeTable& table, NodeRole role);
// The node called `name`, or nullptr.
const ServiceNode* FindServiceNode(const NodeTable& table, const std::string& name);
// [{"name","role","host","process","address","port"}, ...]
nlohmann::json NodeTableJson(const NodeTable& table);
// A service as config.json and the report show it: {"backend": backend,
// the entries of `settings` (an object), "nodes": NodeTableJson(table)}.
nlohmann::json DescribeService(const std::string& backend, const nlohmann::json& settings,
                               const NodeTable& table);

}  // namespace locksmith
