// The protected resource end to end (issue 12): the inventory workload on
// every backend (redis, redis-sentinel, redlock, zookeeper) with the
// resource store on a host of its own. Without fencing, a holder stalled
// past its lease (its session, on ZooKeeper) oversells or loses updates,
// named by the buyers that prove it; with --fencing on, the same schedule
// leaves the stock exact and the stale writes rejected; on redis-sentinel
// under failover, fencing refuses lower fences but repeated ones lose
// updates; the broken blog-post clients show their damage where the
// correct client, under the same seed and schedule, stays valid. Each run:
// 12 s of workload (the failover run: 20 s).
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

int Count(const std::map<std::string, int>& m, const std::string& k) {
  auto it = m.find(k);
  return it == m.end() ? 0 : it->second;
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

// The fence of the hold (acquire ok) at history index `index`.
int64_t FenceAt(const History& history, const nlohmann::json& ref) {
  const Op& op = history.at(ref["index"].get<size_t>());
  return op.value.is_object() ? op.value.value("fence", int64_t{-1}) : -1;
}

// --fencing on with redis-sentinel under the failover family, the master
// isolated with half of the buyers: the fence counter is an INCR on each
// side's master. The old master, cut off from its replicas, goes on
// counting from F for its side's buyers; the promoted replica counts from
// (at most) F for the other side's. The store rejects every fence below the
// highest it accepted (the fencing checker stays valid: safety against
// *lower* fences holds, at the price of the refused holders' availability),
// but the two sides hand out the *same* fences, which pass the store's >=
// check: two buyers holding equal fences both read and write, and the
// inventory loses updates. Measured over seeds 1-3 and 7 (docs/benchmarks.md).
TEST(ResourceIntegrationTest, FencedSentinelFailoverRefusesLowerFencesRepeatedOnesLoseUpdates) {
  const Shop shop{.buyers = 6, .seconds = 20};
  FinishedRun f = Sale({"--backend", "redis-sentinel", "--fencing", "on", "--nemesis", "failover",
                        "--failover-mode", "isolate", "--failover-clients", "half",
                        "--failover-ms", "5000", "--nemesis-interval", "4"},
                       shop);
  ASSERT_EQ(f.code, 1) << f.out;
  int promotions = 0;
  for (const Op& op : f.history) {
    promotions += op.is_nemesis() && op.type == OpType::kInfo && op.f == "failover" &&
                  op.value.is_object() && op.value["new"].is_string();
  }
  EXPECT_GE(promotions, 1);
  // No write with a fence lower than an accepted one got through.
  EXPECT_EQ(f.results["stats"]["fencing"]["valid"], true) << f.results["stats"]["fencing"];
  // Fences went down after a promotion: holders refused by the store.
  int64_t highest = 0, lower = 0;
  for (const Op& op : f.history) {
    if (op.f != "acquire" || op.type != OpType::kOk || !op.value.contains("fence")) continue;
    const int64_t fence = op.value["fence"].get<int64_t>();
    lower += fence < highest;
    highest = std::max(highest, fence);
  }
  EXPECT_GE(lower, 1) << "no fence went down";
  EXPECT_GE(Rejections(f.history), 1);
  // Repeated fences lost updates: the first pair of buyers the lost update
  // names held the same fence.
  const auto types = Types(f.results);
  ASSERT_GE(Count(types, "lost-update"), 1) << f.results["anomalies"];
  ExpectBuyersNamed(f);
  bool equal_fences = false;
  for (const auto& a : f.results["anomalies"]) {
    if (a["type"] != "lost-update") continue;
    for (const auto& pair : a["overlapping"]) {
      const auto& b = pair["buyers"];
      const int64_t first = FenceAt(f.history, b[0]["hold"]);
      equal_fences |= first >= 0 && first == FenceAt(f.history, b[1]["hold"]);
    }
  }
  EXPECT_TRUE(equal_fences) << f.results["anomalies"];
  std::cout << "sentinel failover, fenced: " << promotions << " promotions, " << lower
            << " acquires with a fence below an earlier one, " << Rejections(f.history)
            << " rejected, anomalies " << f.results["anomalies"].size() << "\n";
}

TEST(ResourceIntegrationTest, GetSetClientOversellsWhereTheCorrectOneDoesNot) {
  const Shop shop{.buyers = 10, .stock = 50};
  FinishedRun bad = Sale({"--client", "redis-get-set"}, shop);
  ASSERT_EQ(bad.code, 1) << bad.out;
  const auto types = Types(bad.results);
  EXPECT_GE(Count(types, "lost-update") + Count(types, "oversold"), 1);
  ExpectBuyersNamed(bad);
  FinishedRun good = Sale({}, shop);
  EXPECT_EQ(good.code, 0) << good.out << good.results["anomalies"];
}

TEST(ResourceIntegrationTest, DelUnlockClientStealsLocksWhereTheCorrectOneDoesNot) {
  // The stall comes after the write, before the release: the correct
  // client's late release fails harmlessly; DEL deletes the next holder's.
  std::vector<std::string> flags = kPauses;
  flags.insert(flags.end(), {"--pause-at", "release"});
  const Shop shop{.work_ms = 100};
  std::vector<std::string> broken = flags;
  broken.insert(broken.end(), {"--client", "redis-del-unlock"});
  FinishedRun bad = Sale(broken, shop);
  ASSERT_EQ(bad.code, 1) << bad.out;
  ExpectBuyersNamed(bad);
  FinishedRun good = Sale(flags, shop);
  EXPECT_EQ(good.code, 0) << good.out << good.results["anomalies"];
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
