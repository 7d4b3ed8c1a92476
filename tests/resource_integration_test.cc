// The protected resource end to end (issue 12): the inventory workload on a
// real Redis (and ZooKeeper) with the resource store on a host of its own.
// Without fencing, a holder stalled past its lease oversells or loses
// updates, named by the buyers that prove it; with --fencing on, the same
// schedule leaves the stock exact and the stale writes rejected; the seed
// article's broken clients show their damage where the correct client,
// under the same seed and schedule, stays valid. Each run: 12 s of workload.
#include <gtest/gtest.h>

#include <map>

#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

using std::chrono::seconds;

// A holder stalls 1.5 s every 3 s while its lease is 0.5 s.
const std::vector<std::string> kPauses = {
    "--nemesis", "client-pause", "--client-pause-ms", "1500", "--nemesis-interval", "3",
    "--lease",   "500"};

struct Shop {
  int buyers = 5;
  int stock = 1000;
  int work_ms = 20;
};

FinishedRun Sale(const std::vector<std::string>& flags, Shop shop = {}) {
  std::vector<std::string> args = {"--workload",    "inventory",
                                   "--stock",       std::to_string(shop.stock),
                                   "--work",        std::to_string(shop.work_ms),
                                   "--concurrency", std::to_string(shop.buyers),
                                   "--time-limit",  "12",
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

TEST(ResourceIntegrationTest, PausedHoldersLoseUpdatesWithoutFencing) {
  std::vector<std::string> flags = kPauses;
  FinishedRun f = Sale(flags);
  ASSERT_EQ(f.code, 1) << f.out;
  const auto types = Types(f.results);
  EXPECT_GE(Count(types, "lost-update") + Count(types, "oversold"), 1) << f.results["anomalies"];
  ExpectBuyersNamed(f);
  EXPECT_EQ(Rejections(f.history), 0);
}

TEST(ResourceIntegrationTest, FencingOnRedisKeepsTheStockExact) {
  std::vector<std::string> flags = kPauses;
  flags.insert(flags.end(), {"--fencing", "on"});
  FinishedRun f = Sale(flags);
  EXPECT_EQ(f.code, 0) << f.out << f.results["anomalies"];
  EXPECT_GE(Rejections(f.history), 1) << "no stale write was stopped";
  EXPECT_EQ(f.results["stats"]["fencing"]["valid"], true);
}

TEST(ResourceIntegrationTest, FencingOnZookeeperKeepsTheStockExact) {
  FinishedRun f = Sale({"--backend", "zookeeper", "--client", "zk-fair", "--session-timeout",
                        "1000", "--nemesis", "client-pause", "--client-pause-ms", "2500",
                        "--nemesis-interval", "4", "--lease", "500", "--fencing", "on"});
  EXPECT_EQ(f.code, 0) << f.out << f.results["anomalies"];
  EXPECT_GE(Rejections(f.history), 1) << "no stale write was stopped";
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
