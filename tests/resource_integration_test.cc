// The protected resource end to end (issue 12): the inventory workload on
// every backend (redis, redis-sentinel, redlock, zookeeper) with the
// resource store on a host of its own. Without fencing, a holder stalled
// past its lease (its session, on ZooKeeper) oversells or loses updates,
// named by the buyers that prove it; with --fencing on, the same schedule
// leaves the stock exact and the stale writes rejected; on redis-sentinel
// under failover, the same fences are handed to two acquisitions (found as
// fence-reused) and the store takes each from one only; the broken
// blog-post clients each show their own damage (redis-get-set oversells,
// redis-del-unlock releases another buyer's lock) where the correct client,
// under the same seed and schedule, stays valid. Each run: 12 s of
// workload or less (the failover run: 6 s).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <iostream>
#include <map>

#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

using std::chrono::seconds;

// A holder stalls 1.5 s every 3 s while its lease is 0.5 s.
const std::vector<std::string> kPauses = {
    "--nemesis", "client-pause", "--client-pause-ms", "1500", "--nemesis-interval", "3",
    "--lease",   "500"};

// On ZooKeeper the lock lives as long as the session: a holder stalls 2.5 s
// every 4 s while its session times out after 1 s.
const std::vector<std::string> kZookeeperPauses = {
    "--backend", "zookeeper",    "--client",          "zk-fair", "--session-timeout",  "1000",
    "--nemesis", "client-pause", "--client-pause-ms", "2500",    "--nemesis-interval", "4",
    "--lease",   "500"};

// The pauses above on `backend` (redis, redis-sentinel, redlock, zookeeper).
std::vector<std::string> PausesOn(const std::string& backend) {
  if (backend == "zookeeper") return kZookeeperPauses;
  std::vector<std::string> flags = {"--backend", backend};
  flags.insert(flags.end(), kPauses.begin(), kPauses.end());
  return flags;
}

struct Shop {
  int buyers = 5;
  int stock = 1000;
  int work_ms = 20;
  int seconds = 12;
};

FinishedRun Sale(const std::vector<std::string>& flags, Shop shop = {}) {
  std::vector<std::string> args = {"--workload",    "inventory",
                                   "--stock",       std::to_string(shop.stock),
                                   "--work",        std::to_string(shop.work_ms),
                                   "--concurrency", std::to_string(shop.buyers),
                                   "--time-limit",  std::to_string(shop.seconds),
                                   "--seed",        "7"};
  args.insert(args.end(), flags.begin(), flags.end());
  return RunAndLoad(args, seconds(150));
}

std::map<std::string, int> Types(const nlohmann::json& results) {
  std::map<std::string, int> types;
  for (const auto& a : results["anomalies"]) ++types[a.value("type", "")];
  return types;
}

// Rejections the store recorded (fail with "rejected").
int Rejections(const History& history) {
  int n = 0;
  for (const Op& op : history) {
    n += op.type == OpType::kFail && op.value.is_object() && op.value.value("rejected", false);
  }
  return n;
}

// The first oversold / lost-update anomaly names two buyers, each with its
// hold, read and write: ops that are in the history.
void ExpectBuyersNamed(const FinishedRun& f) {
  for (const auto& a : f.results["anomalies"]) {
    if (a["type"] != "oversold" && a["type"] != "lost-update") continue;
    ASSERT_FALSE(a["overlapping"].empty()) << a.dump();
    const auto& buyers = a["overlapping"][0]["buyers"];
    ASSERT_EQ(buyers.size(), 2u);
    EXPECT_NE(buyers[0]["process"], buyers[1]["process"]);
    for (const auto& b : buyers) {
      for (const char* part : {"hold", "read", "write"}) {
        ASSERT_TRUE(b[part].is_object()) << part << " " << b.dump();
        const Op& op = f.history.at(b[part]["index"].get<size_t>());
        EXPECT_EQ(op.process, b["process"].get<int64_t>()) << part;
      }
      EXPECT_EQ(b["read_value"], buyers[0]["read_value"]);
    }
    return;
  }
  ADD_FAILURE() << "no oversold or lost-update anomaly";
}

std::string TestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name;
  bool upper = true;
  for (char c : info.param) {
    if (c == '-') {
      upper = true;
      continue;
    }
    name += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return name;
}

// Without fencing, every backend: a holder paused past its lease (on
// ZooKeeper: past its session) writes after the next holder read, and the
// inventory loses updates or oversells, named by the buyers that prove it.
class PausedHoldersTest : public ::testing::TestWithParam<std::string> {};

TEST_P(PausedHoldersTest, LoseUpdatesWithoutFencing) {
  FinishedRun f = Sale(PausesOn(GetParam()));
  ASSERT_EQ(f.code, 1) << f.out;
  const auto types = Types(f.results);
  EXPECT_GE(Count(types, "lost-update") + Count(types, "oversold"), 1) << f.results["anomalies"];
  ExpectBuyersNamed(f);
  EXPECT_EQ(Rejections(f.history), 0);
  // The clients' lock events are in the history: on ZooKeeper the stalled
  // holder's session expired, and its client said so (lock-lost).
  int lost = 0;
  for (const Op& op : f.history) lost += op.f == "lock-lost";
  if (GetParam() == "zookeeper") {
    EXPECT_GE(lost, 1);
  }
  std::cout << GetParam() << ": lost-update " << Count(types, "lost-update") << ", oversold "
            << Count(types, "oversold") << ", lock-lost events " << lost << "\n";
}

INSTANTIATE_TEST_SUITE_P(EveryBackend, PausedHoldersTest,
                         ::testing::Values("redis", "redis-sentinel", "redlock", "zookeeper"),
                         TestName);

// With --fencing on, the same pauses leave the stock exact: the stale
// holder's reads and writes are rejected (fail ops in the history) and the
// store never accepted a fence lower than one it had accepted.
class FencedPausesTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FencedPausesTest, KeepTheStockExact) {
  std::vector<std::string> flags = PausesOn(GetParam());
  flags.insert(flags.end(), {"--fencing", "on"});
  FinishedRun f = Sale(flags);
  EXPECT_EQ(f.code, 0) << f.out << f.results["anomalies"];
  EXPECT_GE(Rejections(f.history), 1) << "no stale write was stopped";
  EXPECT_EQ(f.results["stats"]["fencing"]["valid"], true);
  std::cout << GetParam() << ": " << Rejections(f.history) << " stale reads or writes rejected\n";
}

INSTANTIATE_TEST_SUITE_P(FencedBackends, FencedPausesTest,
                         ::testing::Values("redis", "redis-sentinel", "zookeeper"), TestName);

// --fencing on with redis-sentinel, the master isolated with half of the
// buyers by a scripted failover (one item; 1 s in, healed at 5 s): the fence
// counter is an INCR on each side's master, so the promoted replica hands
// out again the fences the old master goes on handing out to its side. The
// fencing checker names each fence granted to a second acquisition
// (fence-reused: the run is invalid), and the store, which takes an equal
// fence only from the acquisition that was granted it, keeps the stock
// exact: no lost update, no oversell. 6 s of workload.
TEST(ResourceIntegrationTest, FencedSentinelFailoverReusesFencesTheStoreTakesEachOnce) {
  TempDir dir;
  const nlohmann::json steps = {
      {{"at_ms", 1000}, {"f", "failover"}, {"value", {{"mode", "isolate"}, {"clients", "half"}}}},
      {{"at_ms", 5000}, {"f", "failover-heal"}}};
  const std::string config = WriteConfigFile(
      dir.path(), {{"backend", "redis-sentinel"}, {"workload", "inventory"}, {"fencing", "on"},
                   {"concurrency", 6}, {"stock", 1000}, {"work", "20"}, {"time_limit_s", 6},
                   {"seed", 7}, {"steps", steps}});
  FinishedRun f = RunAndLoad({"--config", config}, seconds(150));
  ASSERT_EQ(f.code, 1) << f.out;
  int promotions = 0;
  for (const Op& op : f.history) {
    promotions += op.is_nemesis() && op.type == OpType::kInfo && op.f == "failover" &&
                  op.value.is_object() && op.value["new"].is_string();
  }
  ASSERT_EQ(promotions, 1) << f.out;
  const auto types = Types(f.results);
  ASSERT_GE(Count(types, "fence-reused"), 1) << f.results["anomalies"];
  EXPECT_EQ(f.results["stats"]["fencing"]["valid"], false);
  // Each names two acquisitions of item-0 granted the same fence.
  for (const auto& a : f.results["anomalies"]) {
    if (a["type"] != "fence-reused") continue;
    const Op& first = f.history.at(a["ops"][0]["index"].get<size_t>());
    const Op& second = f.history.at(a["ops"][1]["index"].get<size_t>());
    EXPECT_EQ(first.f, "acquire");
    EXPECT_EQ(second.type, OpType::kOk);
    EXPECT_EQ(first.value["fence"], a["fence"]);
    EXPECT_EQ(second.value["fence"], a["fence"]);
    EXPECT_NE(first.value["token"], second.value["token"]);
  }
  // The store took each fence from one acquisition only: the stock is exact.
  EXPECT_EQ(Count(types, "lost-update"), 0) << f.results["anomalies"];
  EXPECT_EQ(Count(types, "oversold"), 0);
  EXPECT_EQ(f.results["stats"]["inventory"]["valid"], true);
  EXPECT_GE(Rejections(f.history), 1);
  std::cout << "sentinel failover, fenced: " << Count(types, "fence-reused")
            << " fences reused, " << Rejections(f.history) << " reads or writes rejected\n";
}

// GET, then SET: ten buyers that start together all see item-0 free and
// all "acquire" it, so sales overwrite each other from the first round on;
// 50 units sell out within the 6 s either way, and then there were more
// orders than units: oversold, every time.
TEST(ResourceIntegrationTest, GetSetClientOversellsWhereTheCorrectOneDoesNot) {
  const Shop shop{.buyers = 10, .stock = 50, .seconds = 6};
  FinishedRun bad = Sale({"--client", "redis-get-set"}, shop);
  ASSERT_EQ(bad.code, 1) << bad.out;
  const auto types = Types(bad.results);
  EXPECT_GE(Count(types, "oversold"), 1) << bad.results["anomalies"];
  ExpectBuyersNamed(bad);
  FinishedRun good = Sale({}, shop);
  EXPECT_EQ(good.code, 0) << good.out << good.results["anomalies"];
  EXPECT_EQ(good.results["stats"]["inventory"]["stats"]["items"]["item-0"]["final_stock"], 0)
      << "the correct client sold out too";
}

// The stall comes after the write, before the release, and outlasts the
// lease: the correct client's late release fails harmlessly; DEL deletes
// the next holder's lock (foreign-release, naming the releaser, the holder
// and the release).
TEST(ResourceIntegrationTest, DelUnlockClientReleasesAnotherBuyersLockWhereTheCorrectOneDoesNot) {
  std::vector<std::string> flags = kPauses;
  flags.insert(flags.end(), {"--pause-at", "release"});
  const Shop shop{.work_ms = 100, .seconds = 8};
  std::vector<std::string> broken = flags;
  broken.insert(broken.end(), {"--client", "redis-del-unlock"});
  FinishedRun bad = Sale(broken, shop);
  ASSERT_EQ(bad.code, 1) << bad.out;
  int foreign = 0;
  for (const auto& a : bad.results["anomalies"]) {
    if (a["type"] != "foreign-release") continue;
    ++foreign;
    EXPECT_NE(a["releaser"], a["holder"]);
    const Op& release = bad.history.at(a["ops"][3]["index"].get<size_t>());
    EXPECT_EQ(release.f, "release");
    EXPECT_EQ(release.type, OpType::kOk);
    EXPECT_EQ(release.process, a["releaser"].get<int64_t>());
  }
  EXPECT_GE(foreign, 1) << bad.results["anomalies"];
  FinishedRun good = Sale(flags, shop);
  EXPECT_EQ(good.code, 0) << good.out << good.results["anomalies"];
  EXPECT_EQ(good.results["stats"]["foreign-release"]["valid"], true);
  std::cout << "redis-del-unlock: " << foreign << " foreign releases\n";
}

TEST(ResourceIntegrationTest, RedlockRefusesFencing) {
  TempDir dir;
  std::string out;
  const int code = RunLocksmith(dir.path(),
                                {"run", "--store", "store", "--backend", "redlock", "--workload",
                                 "inventory", "--fencing", "on"},
                                seconds(30), &out);
  EXPECT_EQ(code, 254);
  EXPECT_NE(out.find("redlock has no single counter"), std::string::npos) << out;
}

}  // namespace
}  // namespace locksmith::testing
