#include "base/testing/temp_dir.h"
#include "cluster/run_registry.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "cluster/cleanup.h"
#include "cluster/proc_info.h"
#include "cluster/testing/fake_net.h"

#include <nlohmann/json.hpp>

namespace locksmith {
namespace {
namespace fs = std::filesystem;

using testing::TempDir;

// A record as a run writes it (every record names its controller's pid),
// for the tests that only need a tag.
RunRecord TaggedRecord(const std::string& tag) {
  RunRecord r;
  r.tag = tag;
  r.controller_pid = 4242;
  return r;
}

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

// A number that is not a whole one in range is a message, never a cast: a
// float or a huge pid given to get<int>() is undefined behaviour (the fuzz
// target found a 90-digit controller_pid).
TEST(RunRegistryTest, NumbersOutOfRangeAreRefusedByName) {
  const auto with = [](const char* key, const nlohmann::json& value) {
    nlohmann::json j = nlohmann::json::parse(SerializeRunRecord(SampleRecord()));
    if (std::string(key) == "pid") {
      j["processes"][0]["pid"] = value;
    } else {
      j[key] = value;
    }
    return ParseRunRecord(j.dump());
  };
  for (const auto& [key, value] : std::vector<std::pair<const char*, nlohmann::json>>{
           {"controller_pid", nlohmann::json::parse("1" + std::string(90, '1'))},
           {"controller_pid", 1.5},
           {"controller_pid", 0},
           {"controller_pid", -7},
           {"controller_pid", 4294967296},
           {"controller_start_time", -1},
           {"controller_start_time", 2.5},
           {"slice", -2},
           {"slice", 1e40},
           {"pid", 3e9}}) {
    auto parsed = with(key, value);
    ASSERT_FALSE(parsed.ok()) << key << " " << value;
    EXPECT_NE(parsed.error().find(key), std::string::npos) << parsed.error();
  }
  ASSERT_TRUE(with("slice", -1).ok());
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
    RunRecord r = TaggedRecord("tag" + std::string(i < 10 ? "00" : "0") + std::to_string(i));
    ASSERT_TRUE(registry.RegisterLocked(r, true).ok());
    EXPECT_TRUE(slices.insert(r.slice).second);
  }
  RunRecord extra = TaggedRecord("tagxxx");
  auto s = registry.RegisterLocked(extra, true);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("locksmith cleanup"), std::string::npos);
  // Freeing one slice makes it available again.
  ASSERT_TRUE(registry.Remove("tag005").ok());
  ASSERT_TRUE(registry.RegisterLocked(extra, true).ok());
  EXPECT_EQ(extra.slice, 5);
}

// An unregistered run's bridge still holds its addresses: a slice the kernel
// reports busy is skipped even though no record names it.
TEST(RunRegistryTest, SkipsSlicesBusyWithoutARecord) {
  TempDir dir;
  RunRegistry registry(dir.path());
  auto lock = registry.Acquire();
  ASSERT_TRUE(lock.ok());
  RunRecord first = TaggedRecord("tagaaa");
  ASSERT_TRUE(registry.RegisterLocked(first, true, {0, 1, 3}).ok());
  EXPECT_EQ(first.slice, 2);
  RunRecord second = TaggedRecord("tagbbb");
  ASSERT_TRUE(registry.RegisterLocked(second, true, {0, 1, 3}).ok());
  EXPECT_EQ(second.slice, 4);
  std::set<int> all;
  for (int s = 0; s < 16; ++s) all.insert(s);
  RunRecord none = TaggedRecord("tagccc");
  EXPECT_FALSE(registry.RegisterLocked(none, true, all).ok());
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

nlohmann::json ReadController(const std::string& run_dir) {
  std::ifstream in(run_dir + "/" + kRunControllerFile);
  return nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
}

void WriteController(const std::string& run_dir, const nlohmann::json& j) {
  std::ofstream(run_dir + "/" + kRunControllerFile) << j.dump();
}

TEST(RunControllerTest, ARunWhoseControllerRunsIsLive) {
  TempDir dir;
  ASSERT_TRUE(WriteRunController(dir.path()).ok());
  auto live = LiveRunController(dir.path());
  ASSERT_TRUE(live.ok()) << live.error();
  ASSERT_TRUE(live->has_value());
  EXPECT_EQ(**live, getpid());
  EXPECT_FALSE(fs::exists(dir.path() + "/" + kRunControllerFile + ".tmp"));
}

TEST(RunControllerTest, ARunWhoseControllerEndedIsNotLive) {
  TempDir dir;
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(WriteRunController(dir.path()).ok() ? 0 : 1);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(ReadController(dir.path())["pid"], child);
  auto live = LiveRunController(dir.path());
  ASSERT_TRUE(live.ok()) << live.error();
  EXPECT_FALSE(live->has_value());
}

TEST(RunControllerTest, PidReuseAndAnotherBootAreNotLive) {
  TempDir dir;
  ASSERT_TRUE(WriteRunController(dir.path()).ok());
  const nlohmann::json mine = ReadController(dir.path());

  nlohmann::json reused = mine;  // this pid, but another process's start time
  reused["start_time"] = mine["start_time"].get<uint64_t>() + 1;
  WriteController(dir.path(), reused);
  auto live = LiveRunController(dir.path());
  ASSERT_TRUE(live.ok()) << live.error();
  EXPECT_FALSE(live->has_value());

  nlohmann::json rebooted = mine;  // this very process, as seen in another boot
  rebooted["boot_id"] = "00000000-0000-0000-0000-000000000000";
  WriteController(dir.path(), rebooted);
  live = LiveRunController(dir.path());
  ASSERT_TRUE(live.ok()) << live.error();
  EXPECT_FALSE(live->has_value());
}

TEST(RunControllerTest, NoFileIsNotLiveAndAMalformedOneIsAnError) {
  TempDir dir;
  auto none = LiveRunController(dir.path());
  ASSERT_TRUE(none.ok()) << none.error();
  EXPECT_FALSE(none->has_value());
  for (const char* text : {"{not json", "[]", R"({"pid":"1","start_time":1,"boot_id":""})",
                           R"({"pid":-5,"start_time":1,"boot_id":""})",
                           R"({"pid":1,"start_time":1})"}) {
    std::ofstream(dir.path() + "/" + kRunControllerFile) << text;
    auto bad = LiveRunController(dir.path());
    ASSERT_FALSE(bad.ok()) << text;
    EXPECT_NE(bad.error().find(kRunControllerFile), std::string::npos) << bad.error();
    EXPECT_EQ(bad.error().find('\n'), std::string::npos);
  }
}

}  // namespace
}  // namespace locksmith

namespace locksmith {
namespace {

TEST(RunRegistryTest, ACgroupRoundTripsAndAForeignOneIsRefused) {
  RunRecord r = SampleRecord();
  r.cgroup = "/sys/fs/cgroup/user.slice/locksmith-a1b2c3";
  auto parsed = ParseRunRecord(SerializeRunRecord(r));
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(parsed->cgroup, r.cgroup);
  for (const char* foreign : {"/sys/fs/cgroup/locksmith-ffffff", "/sys/fs/cgroup",
                              "relative/locksmith-a1b2c3",
                              "/sys/fs/cgroup/../../home/locksmith-a1b2c3"}) {
    r.cgroup = foreign;
    EXPECT_FALSE(ParseRunRecord(SerializeRunRecord(r)).ok()) << foreign;
  }
}

// The per-uid registry under the temporary directory is checked as /run's
// is: a directory someone else may write, or a record someone else may
// have written, is never trusted.
TEST(RunRegistryTest, ARegistryOthersMayWriteIsRefused) {
  TempDir dir;
  const std::string registry_dir = dir.path() + "/locksmith-" + std::to_string(geteuid());
  ASSERT_TRUE(RunRegistry(registry_dir).Acquire().ok());
  EXPECT_EQ(fs::status(registry_dir).permissions() & fs::perms::all, fs::perms::owner_all);
  fs::permissions(registry_dir, fs::perms::all);  // 0777, as another user might make it
  auto refused = RunRegistry(registry_dir).Acquire();
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("refusing the run registry " + registry_dir), std::string::npos)
      << refused.error();
  EXPECT_NE(refused.error().find("mode 0777"), std::string::npos) << refused.error();
  EXPECT_FALSE(RunRegistry(registry_dir).Save(SampleRecord()).ok());
  // A link in its place is refused too.
  fs::permissions(registry_dir, fs::perms::owner_all);
  fs::create_directory_symlink(registry_dir, dir.path() + "/linked");
  EXPECT_FALSE(RunRegistry(dir.path() + "/linked").Acquire().ok());
  if (geteuid() == 0) {  // only root can give a directory away
    ASSERT_EQ(chown(registry_dir.c_str(), 65534, 65534), 0);
    auto foreign = RunRegistry(registry_dir).Acquire();
    ASSERT_FALSE(foreign.ok());
    EXPECT_NE(foreign.error().find("uid 65534"), std::string::npos) << foreign.error();
  }
}

// A planted record names a live process of the same user: cleanup must
// not kill it, and says it left the record alone.
TEST(RunRegistryTest, APlantedRecordIsListedUnreadableAndCleanupKillsNothing) {
  TempDir dir;
  RunRegistry registry(dir.path() + "/registry");
  ASSERT_TRUE(registry.Acquire().ok());
  const pid_t victim = fork();
  if (victim == 0) {
    pause();
    _exit(0);
  }
  ASSERT_GT(victim, 0);
  RunRecord planted = SampleRecord();
  planted.slice = -1;
  planted.netns.clear();
  planted.links.clear();
  planted.controller_pid = 1 << 22;  // no such process: a dead run
  planted.processes = {{victim, ReadProcStat(victim)->start_time, "n1"}};
  const std::string path = registry.dir() + "/runs/a1b2c3.json";
  std::ofstream(path) << SerializeRunRecord(planted);
  fs::permissions(path, fs::perms::all);  // 0666: anyone may have written it
  auto listing = registry.List();
  EXPECT_TRUE(listing.records.empty());
  ASSERT_EQ(listing.unreadable.size(), 1u);
  EXPECT_NE(listing.unreadable[0].find("never acted on"), std::string::npos)
      << listing.unreadable[0];

  testing::FakeNet net;
  std::ostringstream out;
  CleanupReport report =
      CleanupLeftovers(out, {.state_dir = registry.dir(), .only_tag = "a1b2c3", .net = &net});
  EXPECT_EQ(report.left.size(), 1u) << out.str();
  EXPECT_TRUE(IsSameProcessAlive(victim, planted.processes[0].start_time)) << out.str();
  kill(victim, SIGKILL);
  waitpid(victim, nullptr, 0);
}

}  // namespace
}  // namespace locksmith
