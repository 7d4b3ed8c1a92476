#include "backends/node_table.h"

#include <array>
#include <utility>

namespace locksmith {
namespace {

constexpr std::array<std::pair<NodeRole, std::string_view>, 5> kRoleNames = {{
    {NodeRole::kPrimary, "primary"},
    {NodeRole::kReplica, "replica"},
    {NodeRole::kSentinel, "sentinel"},
    {NodeRole::kZkPeer, "zk-peer"},
    {NodeRole::kEtcdMember, "etcd-member"},
}};

}  // namespace

std::string_view RoleName(NodeRole role) {
  for (const auto& [r, name] : kRoleNames) {
    if (r == role) return name;
  }
  return "unknown";
}

std::optional<NodeRole> ParseRole(std::string_view name) {
  for (const auto& [role, n] : kRoleNames) {
    if (n == name) return role;
  }
  return std::nullopt;
}

std::vector<std::string> NodeNames(const NodeTable& table) {
  std::vector<std::string> names;
  for (const auto& node : table) names.push_back(node.name);
  return names;
}

std::vector<std::string> NodesWithRole(const NodeTable& table, NodeRole role) {
  std::vector<std::string> names;
  for (const auto& node : table) {
    if (node.role == role) names.push_back(node.name);
  }
  return names;
}

const ServiceNode* FindServiceNode(const NodeTable& table, const std::string& name) {
  for (const auto& node : table) {
    if (node.name == name) return &node;
  }
  return nullptr;
}

nlohmann::json NodeTableJson(const NodeTable& table) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& n : table) {
    nodes.push_back({{"name", n.name},
                     {"role", std::string(RoleName(n.role))},
                     {"host", n.host},
                     {"process", n.process},
                     {"address", n.address},
                     {"port", n.port}});
  }
  return nodes;
}

nlohmann::json DescribeService(const std::string& backend, const nlohmann::json& settings,
                               const NodeTable& table) {
  nlohmann::json out = {{"backend", backend}};
  if (settings.is_object()) {
    for (const auto& [key, value] : settings.items()) out[key] = value;
  }
  out["nodes"] = NodeTableJson(table);
  return out;
}

}  // namespace locksmith
