#include "backends/leader_cache.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

using std::chrono::hours;

TEST(LeaderCacheTest, ProbesUntilALeaderIsRecordedThenAnswersFromWhatItKnows) {
  LeaderCache cache(hours(1));
  int probes = 0;
  auto probe = [&]() -> Result<std::string> {
    ++probes;
    return std::string("n3");
  };
  EXPECT_EQ(cache.Leader(probe), "n3");
  EXPECT_EQ(probes, 1);
  cache.Record("n2");
  EXPECT_EQ(cache.Leader(probe), "n2");
  EXPECT_EQ(probes, 1);
  cache.Forget("n1");  // not the leader: nothing changes
  EXPECT_EQ(cache.Leader(probe), "n2");
  cache.Forget("n2");  // killed: no leader until the next probe
  EXPECT_EQ(cache.Leader(probe), "");
  EXPECT_EQ(probes, 1);
}

TEST(LeaderCacheTest, AProbeThatFindsNoLeaderGivesNone) {
  LeaderCache cache(hours(1));
  EXPECT_EQ(cache.Leader([]() -> Result<std::string> { return Error{"no peer leads"}; }), "");
}

TEST(LeaderCacheTest, WithPrimaryGivesTheLeaderThePrimaryRole) {
  NodeTable table(3);
  for (int i = 0; i < 3; ++i) {
    table[i].name = "n" + std::to_string(i + 1);
    table[i].role = "zk-peer";
  }
  const NodeTable led = WithPrimary(table, "n2");
  EXPECT_EQ(led[0].role, "zk-peer");
  EXPECT_EQ(led[1].role, kPrimaryRole);
  EXPECT_EQ(led[2].role, "zk-peer");
  EXPECT_EQ(WithPrimary(table, "")[1].role, "zk-peer");
}

}  // namespace
}  // namespace locksmith
