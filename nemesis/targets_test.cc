#include "nemesis/targets.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace locksmith {
namespace {

// A Sentinel-like table: a primary, two replicas, three sentinels.
NodeTable SentinelTable() {
  NodeTable table;
  auto add = [&](const std::string& name, const std::string& role) {
    table.push_back({name, role, name, "redis-server", "198.18.0.2", 6379, role != "sentinel"});
  };
  add("n1", kPrimaryRole);
  add("n2", kReplicaRole);
  add("n3", kReplicaRole);
  add("s1", "sentinel");
  add("s2", "sentinel");
  add("s3", "sentinel");
  return table;
}

NodeTable Peers(int n) {
  NodeTable table;
  for (int i = 1; i <= n; ++i) {
    table.push_back({"n" + std::to_string(i), "zk-peer", "n" + std::to_string(i),
                     "zookeeper", "198.18.0.2", 2181});
  }
  return table;
}

std::vector<std::string> Resolve(const std::string& text, const NodeTable& table,
                                 uint64_t seed = 1) {
  auto target = ParseTarget(text);
  EXPECT_TRUE(target.ok()) << target.error();
  auto nodes = ResolveTarget(*target, table, seed);
  EXPECT_TRUE(nodes.ok()) << nodes.error();
  return nodes.ok() ? *nodes : std::vector<std::string>{};
}

TEST(TargetsTest, KeywordsAndNamesRoundTrip) {
  for (const auto& text :
       {"one", "primary", "replicas", "minority", "majority", "all", "role:sentinel", "n1",
        "n3,n1", "zk-1.a_b"}) {
    auto target = ParseTarget(text);
    ASSERT_TRUE(target.ok()) << text << ": " << target.error();
    EXPECT_EQ(FormatTarget(*target), text);
  }
  EXPECT_EQ(ParseTarget("n3,n1")->names, (std::vector<std::string>{"n3", "n1"}));
  // The keywords select by the roles every backend names alike.
  EXPECT_EQ(*ParseTarget("replicas"), (Target{Target::Kind::kRole, "replica", {}}));
  EXPECT_EQ(*ParseTarget("role:primary"), *ParseTarget("primary"));
  EXPECT_EQ(FormatTarget(*ParseTarget("role:replica")), "replicas");
}

TEST(TargetsTest, BadTextIsOneLineNamingIt) {
  for (const auto& text :
       {"", "n1,", ",n1", "n1,,n2", "n 1", "n1;rm", "n1\nn2", "role:", "role:a b", "role:x,n1"}) {
    auto target = ParseTarget(text);
    ASSERT_FALSE(target.ok()) << text;
    EXPECT_EQ(target.error().find('\n'), std::string::npos) << target.error();
    EXPECT_NE(target.error().find("target"), std::string::npos) << target.error();
  }
  auto twice = ParseTarget("n1,n2,n1");
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.error().find("n1 twice"), std::string::npos) << twice.error();
}

TEST(TargetsTest, RolesFollowTheTable) {
  NodeTable table = SentinelTable();
  EXPECT_EQ(Resolve("primary", table), (std::vector<std::string>{"n1"}));
  EXPECT_EQ(Resolve("replicas", table), (std::vector<std::string>{"n2", "n3"}));
  // After a failover the table says who leads now.
  table[0].role = kReplicaRole;
  table[2].role = kPrimaryRole;
  EXPECT_EQ(Resolve("primary", table), (std::vector<std::string>{"n3"}));
}

TEST(TargetsTest, ARoleTheBackendDeclaresSelectsItsNodes) {
  const NodeTable table = SentinelTable();
  EXPECT_EQ(Resolve("role:sentinel", table), (std::vector<std::string>{"s1", "s2", "s3"}));
  EXPECT_EQ(Resolve("role:replica", table), Resolve("replicas", table));
  auto none = ResolveTarget(*ParseTarget("role:zk-peer"), table, 1);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error(), "target role:zk-peer: the service has no zk-peer nodes");
}

TEST(TargetsTest, ARoleTheBackendLacksIsOneLineNamingItsRoles) {
  const std::vector<NodeRoleSpec> roles = {{"etcd-member"}, {kPrimaryRole}};
  for (const auto& text : {"one", "all", "primary", "role:etcd-member", "n1,n2"}) {
    EXPECT_TRUE(CheckTargetRole(*ParseTarget(text), roles, "etcd").ok()) << text;
  }
  Status replicas = CheckTargetRole(*ParseTarget("replicas"), roles, "etcd");
  ASSERT_FALSE(replicas.ok());
  EXPECT_EQ(replicas.error(),
            "target replicas: backend etcd has no replica nodes (its roles: etcd-member, primary)");
  EXPECT_EQ(UnknownTargetRole("--pause-target", "role:sentinel", roles, "etcd"),
            "--pause-target: target role:sentinel: backend etcd has no sentinel nodes (its "
            "roles: etcd-member, primary)");
  EXPECT_EQ(UnknownTargetRole("--pause-target", "n1,,", roles, "etcd"), "");
}

TEST(TargetsTest, PoolsLeaveSentinelsOutUnlessNamed) {
  const NodeTable table = SentinelTable();
  EXPECT_EQ(Resolve("all", table), (std::vector<std::string>{"n1", "n2", "n3"}));
  EXPECT_EQ(Resolve("s2,n1", table), (std::vector<std::string>{"n1", "s2"}));  // table order
  for (uint64_t seed = 0; seed < 50; ++seed) {
    for (const auto& text : {"one", "minority", "majority"}) {
      for (const auto& node : Resolve(text, table, seed)) EXPECT_EQ(node[0], 'n') << text;
    }
  }
}

TEST(TargetsTest, SizesAtThreeFiveAndSevenNodes) {
  const std::map<int, std::pair<size_t, size_t>> sizes = {{3, {1, 2}}, {5, {2, 3}}, {7, {3, 4}}};
  for (const auto& [n, expected] : sizes) {
    const NodeTable table = Peers(n);
    for (uint64_t seed = 0; seed < 20; ++seed) {
      const auto minority = Resolve("minority", table, seed);
      const auto majority = Resolve("majority", table, seed);
      EXPECT_EQ(minority.size(), expected.first) << n;
      EXPECT_EQ(majority.size(), expected.second) << n;
      EXPECT_EQ(std::set<std::string>(majority.begin(), majority.end()).size(), majority.size());
      EXPECT_EQ(Resolve("one", table, seed).size(), 1u);
      EXPECT_EQ(Resolve("all", table, seed).size(), static_cast<size_t>(n));
    }
  }
}

TEST(TargetsTest, TheSeedDecidesAndEveryNodeCanBePicked) {
  const NodeTable table = Peers(5);
  std::set<std::string> picked;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    EXPECT_EQ(Resolve("majority", table, seed), Resolve("majority", table, seed));
    picked.insert(Resolve("one", table, seed)[0]);
  }
  EXPECT_EQ(picked.size(), 5u);
}

TEST(TargetsTest, WhatHitsNothingIsAnError) {
  const NodeTable single = Peers(1);
  auto minority = ResolveTarget(*ParseTarget("minority"), single, 1);
  ASSERT_FALSE(minority.ok());
  EXPECT_EQ(minority.error(), "target minority: no minority of 1 node");
  auto replicas = ResolveTarget(*ParseTarget("replicas"), single, 1);
  ASSERT_FALSE(replicas.ok());
  EXPECT_EQ(replicas.error(), "target replicas: the service has no replicas");
  auto unknown = ResolveTarget(*ParseTarget("n1,n9"), SentinelTable(), 1);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().find("n9"), std::string::npos) << unknown.error();
}

}  // namespace
}  // namespace locksmith
