#include "cluster/net_plan.h"

#include <gtest/gtest.h>

#include <set>

namespace locksmith {
namespace {

TEST(NetPlanTest, NamesFitIfnamsizForEveryNodeIndex) {
  for (int i = 0; i < kMaxNodesPerSlice; ++i) {
    EXPECT_LE(HostVethName("a1b2c3", i).size(), static_cast<size_t>(kIfNameMax));
    EXPECT_LE(NodeVethName("a1b2c3", i).size(), static_cast<size_t>(kIfNameMax));
  }
  EXPECT_LE(BridgeName("a1b2c3").size(), static_cast<size_t>(kIfNameMax));
  EXPECT_EQ(BridgeName("a1b2c3"), "lsm-a1b2c3-br");
  EXPECT_EQ(HostVethName("a1b2c3", 12), "lsm-a1b2c3-h12");
  EXPECT_EQ(NodeVethName("a1b2c3", 0), "lsm-a1b2c3-n0");
  EXPECT_EQ(NetnsName("a1b2c3", "redis-1"), "lsm-a1b2c3-redis-1");
}

TEST(NetPlanTest, NamesParseBackToTheirTag) {
  EXPECT_EQ(TagFromNetnsName(NetnsName("a1b2c3", "n1")), "a1b2c3");
  EXPECT_EQ(TagFromLinkName(BridgeName("zz0099")), "zz0099");
  EXPECT_EQ(TagFromLinkName(HostVethName("a1b2c3", 7)), "a1b2c3");
  EXPECT_EQ(TagFromLinkName(NodeVethName("a1b2c3", 11)), "a1b2c3");
  EXPECT_EQ(TagFromNetnsName(ClientNetnsName("a1b2c3", 253)), "a1b2c3");
  EXPECT_EQ(TagFromLinkName(ClientVethName("a1b2c3", 253)), "a1b2c3");
  EXPECT_EQ(TagFromLinkName(ClientPeerVethName("a1b2c3", 0)), "a1b2c3");
  EXPECT_EQ(TagFromGuardTableName(GuardTableName("a1b2c3")), "a1b2c3");
  for (const char* name : {"filter", "lsm-a1b2c3", "lsm-a1b2c3-br", "lsm-ABCDEF-guard"}) {
    EXPECT_EQ(TagFromGuardTableName(name), std::nullopt) << name;
  }
}

TEST(NetPlanTest, TheGuardDropsOtherUsersTrafficIntoTheSlicesNetworksAndLinksOnly) {
  auto rules = GuardRules("a1b2c3", 2, 0);
  ASSERT_TRUE(rules.ok()) << rules.error();
  EXPECT_EQ(*rules,
            "add table inet lsm-a1b2c3-guard ; "
            "add chain inet lsm-a1b2c3-guard out { type filter hook output priority 0 ; "
            "policy accept ; } ; "
            "add rule inet lsm-a1b2c3-guard out ip daddr { 198.18.0.32/28, 198.19.2.0/24 } "
            "meta skuid != 0 reject with icmpx type admin-prohibited ; "
            "add rule inet lsm-a1b2c3-guard out oifname \"lsm-a1b2c3-*\" meta skuid != 0 "
            "reject with icmpx type admin-prohibited ; "
            "add chain inet lsm-a1b2c3-guard routed { type filter hook forward priority 0 ; "
            "policy accept ; } ; "
            "add rule inet lsm-a1b2c3-guard routed ip daddr { 198.18.0.32/28, 198.19.2.0/24 } "
            "iifname != \"lsm-a1b2c3-br\" drop");
  EXPECT_NE(GuardRules("a1b2c3", 2, 1000)->find("meta skuid != 1000 reject"), std::string::npos);
  EXPECT_FALSE(GuardRules("a1b2c3", 16, 0).ok());
}

TEST(NetPlanTest, ClientHostNamesFitAndNeverCollideWithANode) {
  EXPECT_EQ(ClientNetnsName("a1b2c3", 4), "lsm-a1b2c3-client.4");
  EXPECT_FALSE(ValidateNodeName("client.4").ok());
  EXPECT_EQ(ClientVethName("a1b2c3", 253), "lsm-a1b2c3-c253");
  EXPECT_LE(ClientVethName("a1b2c3", 253).size(), static_cast<size_t>(kIfNameMax));
  EXPECT_EQ(ClientPeerVethName("a1b2c3", 7), "lsm-a1b2c3-p7");
  EXPECT_EQ(ClientMac(15, 253), "02:4c:53:0f:00:fd");
  EXPECT_EQ(*SliceNetwork(2), "198.18.0.32/28");
  EXPECT_FALSE(SliceNetwork(16).ok());
}

TEST(NetPlanTest, ForeignNamesAreNotOurs) {
  for (const char* name : {"eth0", "lo", "docker0", "lsm-abc-br", "lsm-ABCDEF-br", "lsm-a1b2c3-x1",
                           "lsm-a1b2c3-h", "lsm-a1b2c3-h123", "lsm-a1b2c3br", "xlsm-a1b2c3-br",
                           "lsm-a1b2c3-hx", "lsm-a1b2c3-c1234", "lsm-a1b2c3-p"}) {
    EXPECT_EQ(TagFromLinkName(name), std::nullopt) << name;
  }
  for (const char* name : {"", "cni-1234", "lsm-a1b2c3-", "lsm-a1b2c3", "lsm-a1b2c3-../x",
                           "lsm-a1b2c3--n1", "lsm-a1b2c3-client.", "lsm-a1b2c3-client.x"}) {
    EXPECT_EQ(TagFromNetnsName(name), std::nullopt) << name;
  }
}

TEST(NetPlanTest, ValidatesTags) {
  EXPECT_TRUE(ValidateTag("a1b2c3").ok());
  EXPECT_TRUE(ValidateTag("zzzzzz").ok());
  EXPECT_FALSE(ValidateTag("").ok());
  EXPECT_FALSE(ValidateTag("a1b2c").ok());
  EXPECT_FALSE(ValidateTag("a1b2c3d").ok());
  EXPECT_FALSE(ValidateTag("A1B2C3").ok());
  EXPECT_FALSE(ValidateTag("a1-2c3").ok());
  EXPECT_NE(ValidateTag("x").error().find("exactly 6"), std::string::npos);
}

TEST(NetPlanTest, ValidatesNodeNames) {
  EXPECT_TRUE(ValidateNodeName("n1").ok());
  EXPECT_TRUE(ValidateNodeName("Redis_master-0").ok());
  EXPECT_TRUE(ValidateNodeName(std::string(32, 'a')).ok());
  EXPECT_FALSE(ValidateNodeName(std::string(33, 'a')).ok());
  EXPECT_FALSE(ValidateNodeName("").ok());
  EXPECT_FALSE(ValidateNodeName("-n1").ok());
  EXPECT_FALSE(ValidateNodeName("n/1").ok());
  EXPECT_FALSE(ValidateNodeName("..").ok());
  EXPECT_FALSE(ValidateNodeName("n 1").ok());
}

TEST(NetPlanTest, ChainNamesRespectIptablesLimit) {
  EXPECT_EQ(*ChainName("a1b2c3", "partition"), "LSM-a1b2c3-partition");
  EXPECT_FALSE(ChainName("a1b2c3", "a-very-long-purpose-name").ok());
  EXPECT_FALSE(ChainName("a1b2c3", "").ok());
  EXPECT_FALSE(ChainName("a1b2c3", "bad name").ok());
}

TEST(NetPlanTest, SlicesStayInsideTheBenchmarkRangeAndNeverOverlap) {
  std::set<std::string> all;
  for (int s = 0; s < kSliceCount; ++s) {
    auto bridge = BridgeAddress(s);
    ASSERT_TRUE(bridge.ok());
    EXPECT_TRUE(all.insert(*bridge).second);
    for (int i = 0; i < kMaxNodesPerSlice; ++i) {
      auto node = NodeAddress(s, i);
      ASSERT_TRUE(node.ok());
      EXPECT_TRUE(all.insert(*node).second) << *node;
      EXPECT_EQ(node->rfind("198.18.0.", 0), 0u);
      int last = std::stoi(node->substr(9));
      // Inside this slice's /28 and neither its network nor broadcast address.
      EXPECT_GT(last, s * 16);
      EXPECT_LT(last, s * 16 + 15);
    }
  }
  EXPECT_EQ(*BridgeAddress(0), "198.18.0.1");
  EXPECT_EQ(*NodeAddress(1, 0), "198.18.0.18");
  EXPECT_EQ(*NodeAddress(15, 12), "198.18.0.254");
  EXPECT_EQ(WithPrefix("198.18.0.18"), "198.18.0.18/28");
}

TEST(NetPlanTest, ClientAddressesAreTheSlicesOwnRangeInTheBenchmarkBlock) {
  std::set<std::string> all;
  for (int s = 0; s < kSliceCount; ++s) {
    EXPECT_EQ(*ClientNetwork(s), "198.19." + std::to_string(s) + ".0/24");
    for (int i = 0; i < kMaxClientAddresses; ++i) {
      const std::string a = *ClientAddress(s, i);
      EXPECT_EQ(a.rfind("198.19." + std::to_string(s) + ".", 0), 0u) << a;
      EXPECT_TRUE(all.insert(a).second) << a;
      const int last = std::stoi(a.substr(a.rfind('.') + 1));
      EXPECT_GE(last, 1);
      EXPECT_LE(last, 254);  // never the network or broadcast address
    }
  }
  EXPECT_EQ(*ClientAddress(2, 0), "198.19.2.1");
  EXPECT_EQ(*ClientAddress(2, kMaxClientAddresses), "");  // past the range: the kernel's choice
  EXPECT_FALSE(ClientAddress(2, -1).ok());
  EXPECT_FALSE(ClientAddress(kSliceCount, 0).ok());
  EXPECT_FALSE(ClientNetwork(-1).ok());
}

TEST(NetPlanTest, RejectsOutOfRangeSlicesAndNodes) {
  EXPECT_FALSE(BridgeAddress(-1).ok());
  EXPECT_FALSE(BridgeAddress(kSliceCount).ok());
  EXPECT_FALSE(NodeAddress(0, kMaxNodesPerSlice).ok());
  EXPECT_FALSE(NodeAddress(0, -1).ok());
}

TEST(NetPlanTest, RandomTagsAreValid) {
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(ValidateTag(RandomTag()).ok());
}

}  // namespace
}  // namespace locksmith

namespace locksmith {
namespace {

TEST(NetPlanTest, ANodesBridgeIsTheFirstAddressOfItsSlice) {
  EXPECT_EQ(*BridgeAddressOf(*NodeAddress(1, 2)), *BridgeAddress(1));
  EXPECT_EQ(*BridgeAddressOf("198.18.0.50"), "198.18.0.49");
  EXPECT_FALSE(BridgeAddressOf("198.18.0.49").ok()) << "a bridge, not a node";
  EXPECT_FALSE(BridgeAddressOf("10.0.0.2").ok());
  EXPECT_FALSE(BridgeAddressOf("198.18.0.").ok());
  EXPECT_FALSE(BridgeAddressOf("198.18.0.2x").ok());
}

}  // namespace
}  // namespace locksmith
