#include "workloads/rw_cache_workload.h"

#include <set>

#include <gtest/gtest.h>

#include "workloads/workload_registry.h"

namespace locksmith {
namespace {

TEST(RwCacheWorkloadTest, WriteValuesAreUniqueAndNeverTheInitialValue) {
  const int concurrency = 7;
  std::set<int64_t> seen;
  for (int worker = 0; worker < concurrency; ++worker) {
    for (int64_t nth = 1; nth <= 50; ++nth) {
      const int64_t v = RwCacheWorkload::WriteValue(worker, nth, concurrency);
      EXPECT_GT(v, 0);
      EXPECT_TRUE(seen.insert(v).second) << worker << " " << nth;
    }
  }
  EXPECT_EQ(RwCacheWorkload::WriteValue(0, 1, concurrency), 1);
  EXPECT_EQ(RwCacheWorkload::WriteValue(2, 3, concurrency), 17);
}

TEST(RwCacheWorkloadTest, HoldsSayTheLockModeAndTheRole) {
  // A reader takes a shared lock where the client has one, else the
  // exclusive lock: the double-holder checker judges the mode it took.
  EXPECT_EQ(RwCacheWorkload::HoldTags(true, true),
            nlohmann::json({{"mode", "read"}, {"role", "reader"}}));
  EXPECT_EQ(RwCacheWorkload::HoldTags(true, false),
            nlohmann::json({{"mode", "write"}, {"role", "reader"}}));
  EXPECT_EQ(RwCacheWorkload::HoldTags(false, false),
            nlohmann::json({{"mode", "write"}, {"role", "writer"}}));
}

TEST(RwCacheWorkloadTest, OptionsAndRegistry) {
  auto entry = FindWorkload("rw-cache");
  ASSERT_TRUE(entry.ok());
  EXPECT_TRUE((*entry)->resource_store);
  auto options = (*entry)->options();
  EXPECT_EQ(options->set().ToJson(),
            nlohmann::json({{"caches", 1}, {"read_fraction", 0.8}, {"work", "20"},
                            {"backoff", "5-50"}, {"lease_ms", 1000}, {"pause_at", "write"},
                            {"stuck_leases", 3}}));
  ASSERT_TRUE(options->set().Merge({{"caches", 0}}).ok());
  EXPECT_EQ(options->set().Validate().error(), "--caches must be 1 to 100000");
  ASSERT_TRUE(options->set().Merge({{"caches", 2}, {"read_fraction", 0.5}}).ok());
  auto workload = MakeWorkload("rw-cache", *options);
  ASSERT_TRUE(workload.ok());
  EXPECT_EQ((*workload)->Name(), "rw-cache");
  EXPECT_EQ((*workload)->SharedAcquiresBy(), "");  // readers fall back to the exclusive lock
  EXPECT_EQ((*workload)->LongestLease(), std::chrono::milliseconds(1000));
  std::vector<std::string> names;
  for (const auto& c : (*workload)->Checkers()) names.push_back(c->Name());
  EXPECT_EQ(names, (std::vector<std::string>{"rw-cache", "rw-lock", "fencing", "foreign-release",
                                             "stuck-lock", "perf", "client-stats"}));
}

}  // namespace
}  // namespace locksmith
