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
//    expire (3 s) long before the heal (11 s after the cut): unsafe grants,
//    only after the heal. The sentinels wait 2 s before they call a master
//    down (not the default 1 s), so a loaded machine's stall does not make
//    them fail over on their own. The cut resets every connection to the
//    master at one instant, so the sentinels that lose it call it down
//    within a few milliseconds of each other; two that ask for the votes
//    at once split them and try again 4 s later (twice their 2 s failover
//    timeout): each cut here leaves room for one such retry.
//  - Redis with Sentinel on five hosts under one-way, majorities-ring and
//    bridge, one run each with the options above. Seed 11 draws the host
//    order n1 n4 n2 n3 n5 for all three, so the master's host n1 is on the
//    side cut off from the replicas it could lose its locks to:
//    - one-way (data nodes n1-n5, sentinels s1-s3 on n1-n3, two votes to
//      fail over): n1 and n4 drop what n2, n3 and n5 send. A TCP connection
//      needs packets both ways, so this is halves for Redis: s2 and s3 lose
//      the master and promote n2, n3 or n5; s1 drops their hellos, so it
//      and the clients hear of it only at the heal. Unsafe grants at the
//      heal, as under halves. (With five sentinels the far side's three
//      all call the master down at once and two ask for the votes in the
//      same instant, election after election on a loaded machine.)
//    - majorities-ring (the ring n1 n4 n2 n3 n5) and bridge ({n1, n4} |
//      {n2, n3}, both seeing n5), with data nodes n1-n3 and sentinels s1-s5
//      on n1-n5 (three votes to fail over), so the hosts beside n1 hold
//      sentinels only: no side is a minority. s2 and s3 lose n1, win the
//      vote of a sentinel they share with n1's side and promote n2 or n3;
//      the sentinels beside n1 hear of it at once, s1 from them within a
//      hello period (2 s), and the clients move with s1 during the cut, to
//      a master cut off from n1 since the cut, which has none of the locks
//      n1 granted since (its copies of older ones, with their 3 s leases,
//      expired before the clients come): unsafe grants during the cut. Then
//      s1 and a sentinel beside it lose the new master, win a third vote in
//      turn and fail it over to a data node they reach (n1; in the ring
//      also the other replica), and so on: the master never settles until
//      the heal. Each move takes 3-5 s (2 s to call the master down, then
//      the vote and the promotion); the cut (13.5 s) holds two, and a split
//      vote's retry.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <utility>

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

// When the sentinels announced the master's move off n1: the first of any
// sentinel but s1 (the promotion, seen from where it happened) and s1's own
// (what the clients follow); -1 when none did.
struct SwitchesOffN1 {
  int64_t promoted_at = -1;
  int64_t s1_switched_at = -1;
  std::string promoted;  // the new master, as the first switch named it
};

SwitchesOffN1 FindSwitchesOffN1(const History& history) {
  SwitchesOffN1 s;
  for (const Op& op : history) {
    if (!op.is_service_event() || op.f != "+switch-master" || op.value["from"] != "n1") continue;
    if (op.value["sentinel"] != "s1" && s.promoted_at < 0) {
      s.promoted_at = op.time;
      s.promoted = op.value.value("to", "");
    }
    if (op.value["sentinel"] == "s1" && s.s1_switched_at < 0) s.s1_switched_at = op.time;
  }
  return s;
}

// A mutex run on Redis with Sentinel under one scripted partition of
// `shape`, from 1 s into the run to `heal_at_ms`: 10 clients on 3 keys,
// holds of 1-1.5 s under 3 s leases, sentinels that wait 2 s before they
// call a master down and retry a failed election after 4 s (twice the
// failover timeout). `deployment` adds the backend's host counts.
FinishedRun RunSentinelUnder(const std::string& shape, int64_t heal_at_ms, double time_limit_s,
                             const nlohmann::json& deployment, const std::string& seed) {
  TempDir dir;
  nlohmann::json config = {
      {"backend", "redis-sentinel"}, {"sentinel_down_after_ms", 2000},
      {"sentinel_failover_timeout_ms", 2000}, {"workload", "mutex"}, {"concurrency", 10},
      {"keys", 3}, {"hold", "1000-1500"}, {"lease_ms", 3000}, {"time_limit_s", time_limit_s},
      {"steps",
       {{{"at_ms", 1000}, {"f", "partition"}, {"value", {{"shape", shape}}}},
        {{"at_ms", heal_at_ms}, {"f", "heal"}}}}};
  config.update(deployment);
  return RunAndLoad({"--config", WriteConfigFile(dir.path(), config), "--seed", seed},
                    seconds(150));
}

// The times of the run's one partition and its heal, the partition's grudge
// being `expected`; nullopt (and a failure) otherwise.
std::optional<std::pair<int64_t, int64_t>> OneCut(const FinishedRun& f, const Grudge& expected) {
  const std::vector<Op> cuts = NemesisDone(f.history, "partition");
  const std::vector<Op> heals = NemesisDone(f.history, "heal");
  if (cuts.size() != 1 || heals.size() != 1 || GrudgeOf(cuts[0]) != expected) {
    ADD_FAILURE() << "expected one partition " << nlohmann::json(expected).dump()
                  << " and one heal, got " << cuts.size() << " partition(s) "
                  << (cuts.empty() ? "" : cuts[0].value.dump()) << " and " << heals.size()
                  << " heal(s)";
    return std::nullopt;
  }
  return std::make_pair(cuts[0].time, heals[0].time);
}

// The minority side never hears of the promotion during the cut (halves,
// one-way): the majority's sentinels promote a replica during the cut; s1,
// which the clients watch, switches only after the heal; and every double
// holder is an unsafe grant across that switch: a holder that locked on the
// old master before it, a waiter granted after the heal.
void ExpectUnsafeGrantsAtTheHeal(const FinishedRun& f, int64_t cut, int64_t heal) {
  const SwitchesOffN1 s = FindSwitchesOffN1(f.history);
  ASSERT_GT(s.promoted_at, cut) << "no promotion during the cut";
  ASSERT_LT(s.promoted_at, heal) << "no promotion during the cut";
  ASSERT_GT(s.s1_switched_at, heal) << "s1 did not switch after the heal";
  const auto classes = AnomalyClasses(f.results);
  EXPECT_GE(Count(classes, "unsafe-grant"), 1) << f.out;
  EXPECT_EQ(classes.count("expired-lease-use"), 0u) << f.out;
  for (const auto& anomaly : f.results["anomalies"]) {
    if (anomaly.value("class", "") != "unsafe-grant") continue;
    const auto& holders = anomaly["holders"];
    EXPECT_LT(holders[0]["start"].get<int64_t>(), s.s1_switched_at) << anomaly.dump();
    EXPECT_GT(holders[1]["start"].get<int64_t>(), heal) << anomaly.dump();
  }
  std::cout << "cut to promotion: " << (s.promoted_at - cut) / 1'000'000
            << " ms; heal to s1's switch: " << (s.s1_switched_at - heal) / 1'000'000
            << " ms; unsafe grants: " << Count(classes, "unsafe-grant") << "\n";
}

// s1's +switch-master events, in order: the masters the clients followed.
std::vector<Op> SwitchesOfS1(const History& history) {
  std::vector<Op> switches;
  for (const Op& op : history) {
    if (op.is_service_event() && op.f == "+switch-master" && op.value["sentinel"] == "s1") {
      switches.push_back(op);
    }
  }
  return switches;
}

// Both sides of the master reach a majority of sentinels (majorities-ring,
// bridge): the two sentinels that lose n1 promote n2 or n3, the sentinels
// still beside n1 hear of it during the cut, and the clients move with s1
// to a master cut off from n1 since the cut, which has none of the locks n1
// granted since. Then the new master is lost in turn by two sentinels that
// see a third, s1 among them, and they fail it over too: s1 switches again
// during the cut. Every double holder is an unsafe grant after the first
// promotion (a holder that locked after the cut), and the first move makes
// at least one (a waiter granted before s1's second switch).
void ExpectFlappingMasterAndUnsafeGrants(const FinishedRun& f, int64_t cut, int64_t heal) {
  const SwitchesOffN1 s = FindSwitchesOffN1(f.history);
  ASSERT_GT(s.promoted_at, cut) << "no promotion during the cut";
  EXPECT_TRUE(s.promoted == "n2" || s.promoted == "n3") << s.promoted;
  const std::vector<Op> s1 = SwitchesOfS1(f.history);
  ASSERT_GE(s1.size(), 2u) << "s1 did not switch twice";
  EXPECT_EQ(s1[0].value["from"], "n1");
  EXPECT_EQ(s1[0].value["to"], s.promoted);
  EXPECT_EQ(s1[1].value["from"], s.promoted);
  EXPECT_GT(s1[0].time, cut);
  EXPECT_LT(s1[1].time, heal) << "s1 did not switch twice during the cut";
  const auto classes = AnomalyClasses(f.results);
  EXPECT_GE(Count(classes, "unsafe-grant"), 1) << f.out;
  EXPECT_EQ(classes.count("expired-lease-use"), 0u) << f.out;
  int first_move = 0;
  for (const auto& anomaly : f.results["anomalies"]) {
    if (anomaly.value("class", "") != "unsafe-grant") continue;
    const auto& holders = anomaly["holders"];
    const int64_t holder = holders[0]["start"].get<int64_t>();
    const int64_t waiter = holders[1]["start"].get<int64_t>();
    EXPECT_GT(holder, cut) << anomaly.dump();
    EXPECT_GT(waiter, s.promoted_at) << anomaly.dump();
    first_move += waiter < s1[1].time;
  }
  EXPECT_GE(first_move, 1) << "no unsafe grant when the clients left n1";
  std::cout << "after the cut: promotion of " << s.promoted << " "
            << (s.promoted_at - cut) / 1'000'000 << " ms;";
  for (const Op& op : s1) {
    std::cout << " s1 " << op.value["from"].get<std::string>() << "->"
              << op.value["to"].get<std::string>() << " " << (op.time - cut) / 1'000'000 << " ms;";
  }
  std::cout << " heal " << (heal - cut) / 1'000'000 << " ms; unsafe grants: "
            << Count(classes, "unsafe-grant") << " (" << first_move << " at the first move)\n";
}

TEST(PartitionShapesIntegrationTest, SentinelsMasterAloneOnTheMinorityHalfGrantsUnsafelyAtTheHeal) {
  // Seed 5 draws the halves {n1} | {n2, n3}: the master's host alone.
  FinishedRun f = RunSentinelUnder("halves", 12000, 14.5, nlohmann::json::object(), "5");
  ASSERT_EQ(f.code, 1) << f.out;
  const auto cut = OneCut(f, {{"n1", {"n2", "n3"}}, {"n2", {"n1"}}, {"n3", {"n1"}}});
  ASSERT_TRUE(cut);
  ExpectUnsafeGrantsAtTheHeal(f, cut->first, cut->second);
}

// Five hosts: data nodes n1 (the master), n2 and n3, sentinels s1-s5 on
// n1-n5. Seed 11 draws the host order n1 n4 n2 n3 n5 for each five-host
// shape below.
nlohmann::json FiveSentinels() { return {{"sentinels", 5}, {"replicas", 2}}; }

TEST(PartitionShapesIntegrationTest, SentinelsMastersHalfDroppingTheOthersGrantsUnsafelyAtTheHeal) {
  // Data on n1-n5, sentinels s1-s3 on n1-n3: the far side's two sentinels
  // need each other's vote only (with five, three would race for it).
  FinishedRun f =
      RunSentinelUnder("one-way", 12000, 15.5, {{"sentinels", 3}, {"replicas", 4}}, "11");
  ASSERT_EQ(f.code, 1) << f.out;
  const auto cut = OneCut(f, {{"n1", {"n2", "n3", "n5"}}, {"n4", {"n2", "n3", "n5"}}});
  ASSERT_TRUE(cut);
  ExpectUnsafeGrantsAtTheHeal(f, cut->first, cut->second);
}

TEST(PartitionShapesIntegrationTest, SentinelsRingAroundTheMasterFlapsAndGrantsUnsafely) {
  FinishedRun f = RunSentinelUnder("majorities-ring", 15000, 15.5, FiveSentinels(), "11");
  ASSERT_EQ(f.code, 1) << f.out;
  // The ring n1 n4 n2 n3 n5: the master's neighbours hold no data.
  const auto cut = OneCut(f, {{"n1", {"n2", "n3"}},
                              {"n2", {"n1", "n5"}},
                              {"n3", {"n1", "n4"}},
                              {"n4", {"n3", "n5"}},
                              {"n5", {"n2", "n4"}}});
  ASSERT_TRUE(cut);
  ExpectFlappingMasterAndUnsafeGrants(f, cut->first, cut->second);
}

TEST(PartitionShapesIntegrationTest, SentinelsBridgeToTheMastersHalfFlapsAndGrantsUnsafely) {
  FinishedRun f = RunSentinelUnder("bridge", 15000, 15.5, FiveSentinels(), "11");
  ASSERT_EQ(f.code, 1) << f.out;
  // {n1, n4} | {n2, n3}, both halves seeing n5.
  const auto cut = OneCut(f, {{"n1", {"n2", "n3"}},
                              {"n2", {"n1", "n4"}},
                              {"n3", {"n1", "n4"}},
                              {"n4", {"n2", "n3"}}});
  ASSERT_TRUE(cut);
  ExpectFlappingMasterAndUnsafeGrants(f, cut->first, cut->second);
}

}  // namespace
}  // namespace locksmith::testing
