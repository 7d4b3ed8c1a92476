// NodeTable: the servers of a lock service as plain data, one ServiceNode
// per server process: its name, role, host, program and where clients reach
// it. Fault targets (primary, replicas, a role, minority, majority, named
// nodes) and the service's description in config.json and the report are
// computed from it by pure functions, so they are tested without servers.
// A role is a name its backend declares (LockService::Roles: "sentinel",
// "zk-peer", ...); only "primary" and "replica" mean the same in every
// backend. Roles are as configured at start; who leads after a failover is
// HasPrimary's answer. Pure; thread-safe (values only).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace locksmith {

// The node clients write to now: a Redis master, a ZooKeeper or etcd leader
// (the target "primary").
inline constexpr char kPrimaryRole[] = "primary";
// A node that copies the primary's writes (the target "replicas").
inline constexpr char kReplicaRole[] = "replica";

// A role a backend's nodes play, as the backend declares it.
struct NodeRoleSpec {
  std::string name;
  // Why a power loss cannot reach the writes of its nodes ("etcd's writes
  // (its Go runtime bypasses the C library)"); empty when it can.
  std::string power_loss_unreachable = "";

  bool operator==(const NodeRoleSpec&) const = default;
};

// The names of `roles`, in order.
std::vector<std::string> RoleNames(const std::vector<NodeRoleSpec>& roles);
// The role called `name` in `roles`, or nullptr.
const NodeRoleSpec* FindRole(const std::vector<NodeRoleSpec>& roles, std::string_view name);

struct ServiceNode {
  std::string name;  // unique in the service; what faults name ("n1")
  std::string role = kPrimaryRole;  // one of its backend's Roles()
  std::string host;     // Host::Name() of the host it runs on
  std::string process;  // the server program: "redis-server", "redis-sentinel", ...
  std::string address;  // where the controller's clients reach it
  int port = 0;
  // Whether it holds the service's data: the pool of the targets one,
  // minority, majority and all (a Sentinel holds none: a fault on one is
  // asked for by its role or its name). Not in NodeTableJson.
  bool holds_data = true;

  bool operator==(const ServiceNode&) const = default;
};

using NodeTable = std::vector<ServiceNode>;

// Names in table order.
std::vector<std::string> NodeNames(const NodeTable& table);
// Names of the nodes with `role`, in table order.
std::vector<std::string> NodesWithRole(const NodeTable& table, std::string_view role);
// The node called `name`, or nullptr.
const ServiceNode* FindServiceNode(const NodeTable& table, const std::string& name);
// [{"name","role","host","process","address","port"}, ...]
nlohmann::json NodeTableJson(const NodeTable& table);
// A service as config.json and the report show it: {"backend": backend,
// the entries of `settings` (an object), "nodes": NodeTableJson(table)}.
nlohmann::json DescribeService(const std::string& backend, const nlohmann::json& settings,
                               const NodeTable& table);

}  // namespace locksmith
