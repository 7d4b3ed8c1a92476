#include "nemesis/targets.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace locksmith {
namespace {

// A Sentinel-like table: a primary, two replicas, three sentinels.
NodeTable SentinelTable() {
  NodeTable table;
  auto add = [&](const std::string& name, NodeRole role) {
    table.push_back({name, role, name, "redis-server", "198.18.0.2", 6379});
  };
  add("n1", NodeRole::kPrimary);
  add("n2", NodeRole::kReplica);
  add("n3", NodeRole::kReplica);
  add("s1", NodeRole::kSentinel);
  add("s2", NodeRole::kSentinel);
  add("s3", NodeRole::kSentinel);
  return table;
}

NodeTable Peers(int n) {
  NodeTable table;
  for (int i = 1; i <= n; ++i) {
    table.push_back({"n" + std::to_string(i), NodeRole::kZkPeer, "n" + std::to_string(i),
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
       {"one", "primary", "replicas", "minority", "majority", "all", "n1", "n3,n1", "zk-1.a_b"}) {
    auto target = ParseTarget(text);
    ASSERT_TRUE(target.ok()) << text << ": " << target.error();
    EXPECT_EQ(FormatTarget(*target), text);
  }
  EXPECT_EQ(ParseTarget("n3,n1")->names, (std::vector<std::string>{"n3", "n1"}));
}

TEST(TargetsTest, BadTextIsOneLineNamingIt) {
  for (const auto& text : {"", "n1,", ",n1", "n1,,n2", "n 1", "n1;rm", "n1\nn2"}) {
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
  table[0].role = NodeRole::kReplica;
  table[2].role = NodeRole::kPrimary;
  EXPECT_EQ(Resolve("primary", table), (std::vector<std::string>{"n3"}));
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
