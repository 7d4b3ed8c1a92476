#include "harness/run_registry.h"
#include "tests/temp_dir.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

namespace locksmith {
namespace {
namespace fs = std::filesystem;

using testing::TempDir;

RunRecord SampleRecord() {
  RunRecord r;
  r.tag = "a1b2c3";
  r.controller_pid = 1234;
  r.controller_start_time = 99887766;
  r.slice = 3;
  r.netns = {"lsm-a1b2c3-n1", "lsm-a1b2c3-n2"};
  r.links = {"lsm-a1b2c3-h0", "lsm-a1b2c3-h1", "lsm-a1b2c3-br"};
  r.processes = {{4321, 555, "n1"}, {4322, 556, "n2"}};
  return r;
}

TEST(RunRegistryTest, RecordRoundTrips) {
  RunRecord r = SampleRecord();
  auto parsed = ParseRunRecord(SerializeRunRecord(r));
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(*parsed, r);
}

TEST(RunRegistryTest, RejectsRecordsNamingForeignObjects) {
  RunRecord r = SampleRecord();
  r.links.push_back("eth0");  // never hand a foreign name to `ip link del`
  EXPECT_FALSE(ParseRunRecord(SerializeRunRecord(r)).ok());
  r = SampleRecord();
  r.netns.push_back("lsm-ffffff-n1");  // another run's
  EXPECT_FALSE(ParseRunRecord(SerializeRunRecord(r)).ok());
  EXPECT_FALSE(ParseRunRecord("{not json").ok());
  EXPECT_FALSE(ParseRunRecord("{}").ok());
}

TEST(RunRegistryTest, SaveListRemove) {
  TempDir dir;
  RunRegistry registry(dir.path());
  RunRecord r = SampleRecord();
  {
    auto lock = registry.Acquire();
    ASSERT_TRUE(lock.ok()) << lock.error();
    ASSERT_TRUE(registry.RegisterLocked(r, false).ok());
    EXPECT_FALSE(registry.RegisterLocked(r, false).ok());  // same tag twice
  }
  auto listing = registry.List();
  ASSERT_EQ(listing.records.size(), 1u);
  EXPECT_EQ(listing.records[0], r);
  ASSERT_TRUE(registry.Remove(r.tag).ok());
  EXPECT_TRUE(registry.List().records.empty());
  EXPECT_TRUE(registry.Remove(r.tag).ok());  // absent is fine
}

TEST(RunRegistryTest, AllocatesDistinctSlicesUntilExhausted) {
  TempDir dir;
  RunRegistry registry(dir.path());
  auto lock = registry.Acquire();
  ASSERT_TRUE(lock.ok());
  std::set<int> slices;
  for (int i = 0; i < 16; ++i) {
    RunRecord r;
    r.tag = "tag" + std::string(i < 10 ? "00" : "0") + std::to_string(i);
    ASSERT_TRUE(registry.RegisterLocked(r, true).ok());
    EXPECT_TRUE(slices.insert(r.slice).second);
  }
  RunRecord extra;
  extra.tag = "tagxxx";
  auto s = registry.RegisterLocked(extra, true);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("locksmith cleanup"), std::string::npos);
  // Freeing one slice makes it available again.
  ASSERT_TRUE(registry.Remove("tag005").ok());
  ASSERT_TRUE(registry.RegisterLocked(extra, true).ok());
  EXPECT_EQ(extra.slice, 5);
}

TEST(RunRegistryTest, UnreadableRecordBlocksAllocationAndIsListed) {
  TempDir dir;
  RunRegistry registry(dir.path());
  auto lock = registry.Acquire();
  ASSERT_TRUE(lock.ok());
  std::ofstream(dir.path() + "/runs/zzzzzz.json") << "garbage";
  EXPECT_EQ(registry.List().unreadable.size(), 1u);
  RunRecord r;
  r.tag = "a1b2c3";
  EXPECT_FALSE(registry.RegisterLocked(r, true).ok());
}

TEST(RunRegistryTest, ControllerLivenessUsesStartTime) {
  auto me = NewRecordForThisProcess("a1b2c3");
  ASSERT_TRUE(me.ok());
  EXPECT_TRUE(ControllerAlive(*me));
  RunRecord reused = *me;
  reused.controller_start_time += 1;  // same pid, another process
  EXPECT_FALSE(ControllerAlive(reused));
}

}  // namespace
}  // namespace locksmith
