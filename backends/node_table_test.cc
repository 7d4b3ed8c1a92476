#include "backends/node_table.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

// A Sentinel-style table: what the coming fault targets resolve from.
NodeTable SentinelTable() {
  return {{"n1", NodeRole::kPrimary, "n1", "redis-server", "198.18.0.2", 6379},
          {"n2", NodeRole::kReplica, "n2", "redis-server", "198.18.0.3", 6379},
          {"n3", NodeRole::kReplica, "n3", "redis-server", "198.18.0.4", 6379},
          {"s1", NodeRole::kSentinel, "n1", "redis-sentinel", "198.18.0.2", 26379}};
}

TEST(NodeTableTest, RolesHaveStableNamesThatParseBack) {
  for (NodeRole role :
       {NodeRole::kPrimary, NodeRole::kReplica, NodeRole::kSentinel, NodeRole::kZkPeer,
        NodeRole::kEtcdMember}) {
    EXPECT_EQ(ParseRole(RoleName(role)), role);
  }
  EXPECT_EQ(RoleName(NodeRole::kZkPeer), "zk-peer");
  EXPECT_EQ(RoleName(NodeRole::kEtcdMember), "etcd-member");
  EXPECT_EQ(ParseRole("master"), std::nullopt);
}

TEST(NodeTableTest, SelectsByNameAndRoleInTableOrder) {
  const NodeTable t = SentinelTable();
  EXPECT_EQ(NodeNames(t), (std::vector<std::string>{"n1", "n2", "n3", "s1"}));
  EXPECT_EQ(NodesWithRole(t, NodeRole::kPrimary), std::vector<std::string>{"n1"});
  EXPECT_EQ(NodesWithRole(t, NodeRole::kReplica), (std::vector<std::string>{"n2", "n3"}));
  EXPECT_TRUE(NodesWithRole(t, NodeRole::kZkPeer).empty());
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
