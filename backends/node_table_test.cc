#include "backends/node_table.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

// A Sentinel-style table: what the coming fault targets resolve from.
NodeTable SentinelTable() {
  return {{"n1", kPrimaryRole, "n1", "redis-server", "198.18.0.2", 6379},
          {"n2", kReplicaRole, "n2", "redis-server", "198.18.0.3", 6379},
          {"n3", kReplicaRole, "n3", "redis-server", "198.18.0.4", 6379},
          {"s1", "sentinel", "n1", "redis-sentinel", "198.18.0.2", 26379, false}};
}

TEST(NodeTableTest, RolesAreTheNamesABackendDeclares) {
  const std::vector<NodeRoleSpec> roles = {{"zk-peer"}, {kPrimaryRole, "its writes"}};
  EXPECT_EQ(RoleNames(roles), (std::vector<std::string>{"zk-peer", "primary"}));
  ASSERT_NE(FindRole(roles, "primary"), nullptr);
  EXPECT_EQ(FindRole(roles, "primary")->power_loss_unreachable, "its writes");
  EXPECT_EQ(FindRole(roles, "master"), nullptr);
  // A node is in the primary role unless its backend says otherwise.
  EXPECT_EQ(ServiceNode{}.role, "primary");
}

TEST(NodeTableTest, SelectsByNameAndRoleInTableOrder) {
  const NodeTable t = SentinelTable();
  EXPECT_EQ(NodeNames(t), (std::vector<std::string>{"n1", "n2", "n3", "s1"}));
  EXPECT_EQ(NodesWithRole(t, kPrimaryRole), std::vector<std::string>{"n1"});
  EXPECT_EQ(NodesWithRole(t, kReplicaRole), (std::vector<std::string>{"n2", "n3"}));
  EXPECT_TRUE(NodesWithRole(t, "zk-peer").empty());
  EXPECT_EQ(NodesWithRole(t, "sentinel"), std::vector<std::string>{"s1"});
  ASSERT_NE(FindServiceNode(t, "s1"), nullptr);
  EXPECT_EQ(FindServiceNode(t, "s1")->host, "n1");
  EXPECT_EQ(FindServiceNode(t, "n9"), nullptr);
}

TEST(NodeTableTest, DescriptionIsTheSameShapeForEveryBackend) {
  auto d = DescribeService("redis-sentinel", {{"quorum", 2}}, SentinelTable());
  EXPECT_EQ(d["backend"], "redis-sentinel");
  EXPECT_EQ(d["quorum"], 2);
  ASSERT_EQ(d["nodes"].size(), 4u);
  EXPECT_EQ(d["nodes"][3], nlohmann::json::parse(R"({"name": "s1", "role": "sentinel",
      "host": "n1", "process": "redis-sentinel", "address": "198.18.0.2", "port": 26379})"));
  // Settings never replace the table.
  auto clash = DescribeService("x", {{"nodes", "mine"}}, {});
  EXPECT_EQ(clash["nodes"], nlohmann::json::array());
}

}  // namespace
}  // namespace locksmith
