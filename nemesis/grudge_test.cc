#include "nemesis/grudge.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

std::vector<std::string> Nodes(int n) {
  std::vector<std::string> nodes;
  for (int i = 1; i <= n; ++i) nodes.push_back("n" + std::to_string(i));
  return nodes;
}

// What `node` hears from, itself included.
std::set<std::string> Hears(const Grudge& grudge, const std::vector<std::string>& nodes,
                            const std::string& node) {
  std::set<std::string> heard;
  for (const auto& other : nodes) {
    if (other == node || Reaches(grudge, other, node)) heard.insert(other);
  }
  return heard;
}

bool Symmetric(const Grudge& grudge) {
  for (const auto& [a, dropped] : grudge) {
    for (const auto& b : dropped) {
      if (Reaches(grudge, a, b)) return false;
    }
  }
  return true;
}

class GrudgeTest : public ::testing::TestWithParam<int> {
 protected:
  const std::vector<std::string> nodes_ = Nodes(GetParam());
};

TEST_P(GrudgeTest, IsolatingANodeCutsItFromEveryOtherBothWays) {
  const Grudge g = Isolate(nodes_, {"n2"});
  for (const auto& node : nodes_) {
    if (node == "n2") continue;
    EXPECT_FALSE(Reaches(g, "n2", node));
    EXPECT_FALSE(Reaches(g, node, "n2"));
    for (const auto& other : nodes_) {
      if (other != "n2") {
        EXPECT_TRUE(Reaches(g, other, node));
      }
    }
  }
  EXPECT_TRUE(Symmetric(g));
}

TEST_P(GrudgeTest, RandomHalvesSplitEveryNodeOnceWithTheMajoritySecond) {
  for (uint64_t seed = 0; seed < 20; ++seed) {
    const auto halves = RandomHalves(nodes_, seed);
    ASSERT_EQ(halves.size(), 2u);
    EXPECT_EQ(halves[0].size(), nodes_.size() / 2);
    EXPECT_EQ(halves[1].size(), nodes_.size() - nodes_.size() / 2);
    std::set<std::string> all(halves[0].begin(), halves[0].end());
    all.insert(halves[1].begin(), halves[1].end());
    EXPECT_EQ(all, std::set<std::string>(nodes_.begin(), nodes_.end()));
    const Grudge g = Complete(halves);
    EXPECT_TRUE(Symmetric(g));
    for (const auto& a : halves[0]) {
      for (const auto& b : halves[1]) EXPECT_FALSE(Reaches(g, a, b));
    }
    EXPECT_EQ(RandomHalves(nodes_, seed), halves);  // the seed decides
  }
}

TEST_P(GrudgeTest, MajoritiesRingGivesEveryNodeADistinctMajority) {
  const size_t majority = nodes_.size() / 2 + 1;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    const Grudge g = MajoritiesRing(nodes_, seed);
    std::set<std::set<std::string>> seen;
    for (const auto& node : nodes_) {
      const auto heard = Hears(g, nodes_, node);
      EXPECT_EQ(heard.size(), majority) << node;
      seen.insert(heard);
    }
    EXPECT_EQ(seen.size(), nodes_.size()) << "two nodes see the same majority";
  }
}

TEST_P(GrudgeTest, BridgeSeesBothHalvesWhichDoNotSeeEachOther) {
  for (uint64_t seed = 0; seed < 20; ++seed) {
    const Grudge g = Bridge(nodes_, seed);
    std::vector<std::string> bridges;
    for (const auto& node : nodes_) {
      if (Hears(g, nodes_, node).size() == nodes_.size()) bridges.push_back(node);
    }
    ASSERT_EQ(bridges.size(), 1u);
    EXPECT_TRUE(Symmetric(g));
    for (const auto& node : nodes_) {
      EXPECT_TRUE(Reaches(g, bridges[0], node));
      if (node != bridges[0]) {
        EXPECT_LT(Hears(g, nodes_, node).size(), nodes_.size());
      }
    }
  }
}

TEST_P(GrudgeTest, OneWayDropsOnlyOneDirection) {
  const Grudge g = OneWay(nodes_, 3);
  const auto halves = RandomHalves(nodes_, 3);
  for (const auto& a : halves[0]) {
    for (const auto& b : halves[1]) {
      EXPECT_FALSE(Reaches(g, b, a));
      EXPECT_TRUE(Reaches(g, a, b));
    }
  }
}

TEST_P(GrudgeTest, ClientsCutFromNodesWhileNodesStillSeeEachOther) {
  const Grudge g = ClientsFromNodes({"c3"}, nodes_);
  for (const auto& node : nodes_) {
    EXPECT_FALSE(Reaches(g, "c3", node));
    EXPECT_FALSE(Reaches(g, node, "c3"));
    EXPECT_TRUE(Reaches(g, "c4", node));
    for (const auto& other : nodes_) EXPECT_TRUE(Reaches(g, other, node));
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, GrudgeTest, ::testing::Values(3, 5, 7));

TEST(GrudgeRingTest, FiveNodesAreExactlyTheirRingNeighbours) {
  const auto nodes = Nodes(5);
  const Grudge g = MajoritiesRing(nodes, 11);
  EXPECT_TRUE(Symmetric(g));
  for (const auto& node : nodes) EXPECT_EQ(g.at(node).size(), 2u);
  EXPECT_TRUE(MajoritiesRing(Nodes(2), 1).empty());
}

TEST(DescribeGrudgeTest, IslandsOfNodesThenClientsByWhatTheyLost) {
  // An isolated node with every client but one, as the partition nemesis
  // records a ZooKeeper "isolate one" grudge.
  Grudge grudge;
  std::set<std::string> all_clients_but_c6;
  for (int c = 0; c < 10; ++c) {
    const std::string name = "c" + std::to_string(c);
    if (c == 6) continue;
    grudge[name] = {"n3"};
    all_clients_but_c6.insert(name);
  }
  grudge["c6"] = {"n1", "n2"};
  grudge["n1"] = {"c6", "n3"};
  grudge["n2"] = {"c6", "n3"};
  grudge["n3"] = all_clients_but_c6;
  grudge["n3"].insert({"n1", "n2"});
  EXPECT_EQ(DescribeGrudge(grudge),
            "n1 n2 | n3; c6 cut from n1 n2; c0\xE2\x80\x93" "c5 c7\xE2\x80\x93" "c9 cut from n3");
}

TEST(DescribeGrudgeTest, OneClientCutFromOneNode) {
  EXPECT_EQ(DescribeGrudge({{"c5", {"n1"}}, {"n1", {"c5"}}}), "c5 cut from n1");
  EXPECT_EQ(DescribeGrudge({}), "no cuts");
}

TEST(DescribeGrudgeTest, OneWayCutsSayWhoDrops) {
  EXPECT_EQ(DescribeGrudge({{"n1", {"n2", "n3"}}}), "one-way: n1 drops n2 n3");
}

}  // namespace
}  // namespace locksmith
