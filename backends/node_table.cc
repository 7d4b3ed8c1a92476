#include "backends/node_table.h"

namespace locksmith {

std::vector<std::string> RoleNames(const std::vector<NodeRoleSpec>& roles) {
  std::vector<std::string> names;
  for (const auto& role : roles) names.push_back(role.name);
  return names;
}

const NodeRoleSpec* FindRole(const std::vector<NodeRoleSpec>& roles, std::string_view name) {
  for (const auto& role : roles) {
    if (role.name == name) return &role;
  }
  return nullptr;
}

std::vector<std::string> NodeNames(const NodeTable& table) {
  std::vector<std::string> names;
  for (const auto& node : table) names.push_back(node.name);
  return names;
}

std::vector<std::string> NodesWithRole(const NodeTable& table, std::string_view role) {
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
                     {"role", n.role},
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
