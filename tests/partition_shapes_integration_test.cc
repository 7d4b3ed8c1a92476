// The partition shapes beyond isolate and primary on real servers and real
// firewall rules (nemesis/grudge.h draws them; the unit tests check them on
// a fake network only):
//
//  - A five-peer ZooKeeper ensemble under halves, majorities-ring, bridge and
//    one-way, one after another in one run: every shape leaves a majority
//    that sees itself, and ZooKeeper grants a lock only through a quorum, so
//    no lock is granted twice. The holds (10-100 ms) are far shorter than a
//    session (2 s), the only way a lock node goes without its holder's
//    release, so the run has no double holder at all: valid.
//  - Redis with Sentinel (three hosts, each a data node and a sentinel)
//    under halves with the master's host alone on the minority side and the
//    clients still reaching every host. The two sentinels of the majority
//    promote a replica; the clients follow the sentinel they watch, the
//    minority's, so they keep locking on the old master until the heal, when
//    that sentinel learns of the promotion and they move to the new master,
//    which never saw the old master's locks: a waiter is granted a key whose
//    holder, locked on the old master, still holds it under a valid lease.
//    Holds of 1-1.5 s with 3 s leases make one such holder certain on each
//    of the three keys, and the keys the new master copied before the cut
//    expire (3 s) before the heal (5 s after the cut): unsafe grants, only
//    after the heal. The sentinels wait 2 s before they call a master down
//    (not the default 1 s), so a loaded machine's stall does not make them
//    fail over on their own.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <set>

#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

using std::chrono::seconds;

// grudge[a]: the hosts whose packets a drops.
using Grudge = std::map<std::string, std::set<std::string>>;

Grudge GrudgeOf(const Op& partition) {
  Grudge grudge;
  for (const auto& [host, dropped] : partition.value["grudge"].items()) {
    for (const auto& d : dropped) grudge[host].insert(d.get<std::string>());
  }
  return grudge;
}

bool Symmetric(const Grudge& grudge) {
  for (const auto& [a, dropped] : grudge) {
    for (const auto& b : dropped) {
      if (!grudge.contains(b) || !grudge.at(b).contains(a)) return false;
    }
  }
  return true;
}

// How many hosts drop exactly k others, for each k.
std::map<size_t, int> DropCounts(const Grudge& grudge) {
  std::map<size_t, int> counts;
  for (const auto& [host, dropped] : grudge) ++counts[dropped.size()];
  return counts;
}

// What each shape is on five hosts, from the grudge the run applied.
void ExpectShape(const std::string& shape, const Grudge& g) {
  SCOPED_TRACE(shape);
  if (shape == "halves") {  // two hosts | three hosts, both ways
    EXPECT_TRUE(Symmetric(g));
    EXPECT_EQ(DropCounts(g), (std::map<size_t, int>{{2, 3}, {3, 2}}));
  } else if (shape == "majorities-ring") {  // each sees its two ring neighbours
    EXPECT_TRUE(Symmetric(g));
    EXPECT_EQ(DropCounts(g), (std::map<size_t, int>{{2, 5}}));
  } else if (shape == "bridge") {  // 2 | 2, and a fifth host every host sees
    EXPECT_TRUE(Symmetric(g));
    EXPECT_EQ(DropCounts(g), (std::map<size_t, int>{{2, 4}}));
  } else if (shape == "one-way") {  // two hosts drop the other three's packets, not back
    EXPECT_EQ(DropCounts(g), (std::map<size_t, int>{{3, 2}}));
    for (const auto& [a, dropped] : g) {
      for (const auto& b : dropped) EXPECT_FALSE(g.contains(b)) << a << " " << b;
    }
  } else {
    ADD_FAILURE() << "no such shape";
  }
}

TEST(PartitionShapesIntegrationTest, FiveZooKeeperPeersGrantNoLockTwiceUnderEveryShape) {
  const std::vector<std::string> shapes = {"halves", "majorities-ring", "bridge", "one-way"};
  nlohmann::json steps = nlohmann::json::array();
  for (size_t i = 0; i < shapes.size(); ++i) {
    const int64_t at = 1000 + 3000 * static_cast<int64_t>(i);
    steps.push_back({{"at_ms", at}, {"f", "partition"}, {"value", {{"shape", shapes[i]}}}});
    steps.push_back({{"at_ms", at + 2500}, {"f", "heal"}});
  }
  TempDir dir;
  const std::string config = WriteConfigFile(
      dir.path(), {{"backend", "zookeeper"}, {"client", "zk-fair"}, {"zk_nodes", 5},
                   {"workload", "mutex"}, {"concurrency", 10}, {"keys", 3},
                   {"time_limit_s", 13.5}, {"steps", steps}});
  FinishedRun f = RunAndLoad({"--config", config, "--seed", "1"}, seconds(180));
  EXPECT_EQ(f.code, 0) << f.out;
  EXPECT_TRUE(f.results["anomalies"].empty()) << f.results["anomalies"].dump();

  const std::vector<Op> cuts = NemesisDone(f.history, "partition");
  const std::vector<Op> heals = NemesisDone(f.history, "heal");
  ASSERT_EQ(cuts.size(), shapes.size());
  ASSERT_EQ(heals.size(), shapes.size());
  for (size_t i = 0; i < shapes.size(); ++i) {
    EXPECT_EQ(cuts[i].error, "") << shapes[i];
    EXPECT_EQ(cuts[i].value["shape"], shapes[i]);
    const Grudge grudge = GrudgeOf(cuts[i]);
    ExpectShape(shapes[i], grudge);
    // Every host that drops anything has its rules in place.
    for (const auto& [host, dropped] : grudge) {
      EXPECT_FALSE(cuts[i].value["rules"][host]["drops_from"].empty()) << shapes[i] << " " << host;
    }
    EXPECT_EQ(heals[i].error, "");
    int granted = 0;
    for (const Op& op : f.history) {
      granted += op.is_client() && op.f == "acquire" && op.type == OpType::kOk &&
                 op.time > cuts[i].time && op.time < heals[i].time;
    }
    std::cout << shapes[i] << ": " << granted << " locks granted during the cut\n";
  }
}

TEST(PartitionShapesIntegrationTest, SentinelsMasterAloneOnTheMinorityHalfGrantsUnsafelyAtTheHeal) {
  TempDir dir;
  const std::string config = WriteConfigFile(
      dir.path(),
      {{"backend", "redis-sentinel"}, {"sentinel_down_after_ms", 2000}, {"workload", "mutex"},
       {"concurrency", 10}, {"keys", 3}, {"hold", "1000-1500"}, {"lease_ms", 3000},
       {"time_limit_s", 8.5},
       {"steps",
        {{{"at_ms", 1000}, {"f", "partition"}, {"value", {{"shape", "halves"}}}},
         {{"at_ms", 6000}, {"f", "heal"}}}}});
  // Seed 5 draws the halves {n1} | {n2, n3}: the master's host alone.
  FinishedRun f = RunAndLoad({"--config", config, "--seed", "5"}, seconds(120));
  ASSERT_EQ(f.code, 1) << f.out;
  const std::vector<Op> cuts = NemesisDone(f.history, "partition");
  const std::vector<Op> heals = NemesisDone(f.history, "heal");
  ASSERT_EQ(cuts.size(), 1u);
  ASSERT_EQ(heals.size(), 1u);
  ASSERT_EQ(GrudgeOf(cuts[0]), (Grudge{{"n1", {"n2", "n3"}}, {"n2", {"n1"}}, {"n3", {"n1"}}}))
      << cuts[0].value.dump();

  // The majority's sentinels promoted a replica during the cut; the
  // minority's sentinel, s1, switched only after the heal.
  int64_t promoted_at = -1, s1_switched_at = -1;
  for (const Op& op : f.history) {
    if (!op.is_sentinel() || op.f != "+switch-master" || op.value["from"] != "n1") continue;
    if (op.value["sentinel"] != "s1" && promoted_at < 0) promoted_at = op.time;
    if (op.value["sentinel"] == "s1" && s1_switched_at < 0) s1_switched_at = op.time;
  }
  ASSERT_GT(promoted_at, cuts[0].time) << "no promotion during the cut";
  ASSERT_LT(promoted_at, heals[0].time) << "no promotion during the cut";
  ASSERT_GT(s1_switched_at, heals[0].time) << "s1 never learned of the promotion";

  // Every double holder is an unsafe grant across the switch: a holder that
  // locked on the old master before s1's switch, a waiter granted after the
  // heal.
  const auto classes = AnomalyClasses(f.results);
  EXPECT_GE(Count(classes, "unsafe-grant"), 1) << f.out;
  EXPECT_EQ(classes.count("expired-lease-use"), 0u) << f.out;
  for (const auto& anomaly : f.results["anomalies"]) {
    if (anomaly.value("class", "") != "unsafe-grant") continue;
    const auto& holders = anomaly["holders"];
    EXPECT_LT(holders[0]["start"].get<int64_t>(), s1_switched_at) << anomaly.dump();
    EXPECT_GT(holders[1]["start"].get<int64_t>(), heals[0].time) << anomaly.dump();
  }
  std::cout << "cut to promotion: " << (promoted_at - cuts[0].time) / 1'000'000
            << " ms; heal to s1's switch: " << (s1_switched_at - heals[0].time) / 1'000'000
            << " ms; unsafe grants: " << classes.at("unsafe-grant") << "\n";
}

}  // namespace
}  // namespace locksmith::testing
