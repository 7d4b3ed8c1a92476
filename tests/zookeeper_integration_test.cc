// The zookeeper backend end to end: a 3-peer ensemble is ready and reports
// its leader as the primary, zk-fair and zk-naive grant no unsafe lock with
// no faults, under kills of the leader and under server pauses, a holder
// stalled or cut off past its session timeout makes expired-lease double
// holders (Curator's tech note 10) and is told its lock is lost (a lock-lost
// op), the herd effect shows in watch notifications per release at 10 and
// 50 clients, zk-rw's readers share the lock and its writers
// never overlap anyone, and nothing of a run is left behind.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>

#include "history/history_file.h"
#include "reports/report_model.h"
#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

using std::chrono::seconds;

using Finished = FinishedRun;

Finished RunZookeeper(const std::vector<std::string>& flags) {
  std::vector<std::string> args = {"--backend", "zookeeper", "--time-limit", "10", "--seed", "5"};
  args.insert(args.end(), flags.begin(), flags.end());
  // No java peer, namespace or rule of the run survives it (RunAndLoad checks).
  return RunAndLoad(args, seconds(150));
}

std::map<std::string, int> Classes(const nlohmann::json& results) {
  return AnomalyClasses(results);
}

// The lock-lost events the clients recorded (lone ok ops, as the redis
// watchdog's): the holder was told its lock is gone.
std::vector<Op> LocksLost(const History& history) {
  std::vector<Op> lost;
  for (const Op& op : history) {
    if (op.is_client() && op.f == "lock-lost" && op.type == OpType::kOk) lost.push_back(op);
  }
  return lost;
}

int OkAcquires(const History& history) {
  int n = 0;
  for (const Op& op : history) n += op.f == "acquire" && op.type == OpType::kOk;
  return n;
}

// Watch notifications per ok release, from results.json's client-stats.
double WatchEventsPerRelease(const Finished& f) {
  const auto& stats = f.results["stats"]["client-stats"]["stats"];
  EXPECT_TRUE(stats.contains("per_release")) << f.results["stats"].dump();
  return stats.contains("per_release") ? stats["per_release"]["watch_events"].get<double>() : -1;
}

TEST(ZookeeperIntegrationTest, TheEnsembleIsReadyWithALeaderAndZkFairIsValid) {
  Finished f = RunZookeeper({"--client", "zk-fair"});
  ASSERT_EQ(f.code, 0) << f.out;
  // The service as logged once up: three peers, exactly one the primary.
  std::smatch ready;
  ASSERT_TRUE(std::regex_search(f.out, ready, std::regex("\"ready_ms\":([0-9]+)"))) << f.out;
  const int ready_ms = std::stoi(ready[1]);
  std::cout << "ensemble ready after " << ready_ms << " ms\n";
  const std::string primary = "\"role\":\"primary\"";
  const size_t first = f.out.find(primary);
  ASSERT_NE(first, std::string::npos) << f.out;
  EXPECT_EQ(f.out.find(primary, first + 1), std::string::npos) << "one leader";
  EXPECT_GT(OkAcquires(f.history), 50);
  // Any zookeeper run puts watch notifications per release in results.json.
  EXPECT_GE(WatchEventsPerRelease(f), 0);
  // Every ok acquire carries the lock node's czxid as its fence.
  for (const Op& op : f.history) {
    if (op.f == "acquire" && op.type == OpType::kOk) {
      ASSERT_TRUE(op.value.contains("fence")) << op.value.dump();
    }
  }
}

TEST(ZookeeperIntegrationTest, ZkNaiveWithoutFaultsIsValid) {
  Finished f = RunZookeeper({"--client", "zk-naive"});
  ASSERT_EQ(f.code, 0) << f.out;
  EXPECT_GT(OkAcquires(f.history), 50);
}

TEST(ZookeeperIntegrationTest, KillingTheLeaderGrantsNoUnsafeLock) {
  for (const std::string recipe : {"zk-fair", "zk-naive"}) {
    Finished f = RunZookeeper({"--client", recipe, "--nemesis", "kill", "--kill-target",
                               "primary", "--nemesis-interval", "3"});
    EXPECT_EQ(f.code, 0) << recipe << "\n" << f.out;
    EXPECT_EQ(Count(Classes(f.results), "unsafe-grant"), 0) << recipe;
    const auto kills = NemesisDone(f.history, "kill");
    ASSERT_FALSE(kills.empty()) << recipe;
    EXPECT_EQ(kills.size(), NemesisDone(f.history, "restart").size()) << recipe;
  }
}

TEST(ZookeeperIntegrationTest, PausingTheLeaderGrantsNoUnsafeLock) {
  Finished f = RunZookeeper({"--nemesis", "pause", "--pause-target", "primary",
                             "--nemesis-interval", "3"});
  EXPECT_EQ(f.code, 0) << f.out;
  EXPECT_EQ(Count(Classes(f.results), "unsafe-grant"), 0);
  EXPECT_FALSE(NemesisDone(f.history, "pause").empty());
}

// What it checks: clock bumps struck (the first without error) and the run
// stayed valid; not which peers' clocks moved.
TEST(ZookeeperIntegrationTest, ClockBumpsStrikeWithoutErrorAndTheRunStaysValid) {
  Finished f = RunZookeeper({"--nemesis", "clock", "--nemesis-interval", "3"});
  EXPECT_EQ(f.code, 0) << f.out;
  const auto bumps = NemesisDone(f.history, "clock-bump");
  ASSERT_FALSE(bumps.empty());
  EXPECT_TRUE(bumps[0].error.empty()) << bumps[0].error;
}

TEST(ZookeeperIntegrationTest, AHolderStalledPastItsSessionMakesExpiredLeaseDoubleHolders) {
  // Curator's tech note 10: the session expires while the holder is frozen,
  // the server deletes its node and another client takes the lock.
  // The lease asked for is far longer than the session: it plays no part.
  Finished f = RunZookeeper({"--nemesis", "client-pause", "--client-pause-ms", "4000",
                             "--session-timeout", "1000", "--lease", "30000",
                             "--nemesis-interval", "3"});
  ASSERT_EQ(f.code, 1) << f.out;
  const auto classes = Classes(f.results);
  EXPECT_GE(Count(classes, "expired-lease-use"), 1) << f.results.dump();
  EXPECT_EQ(Count(classes, "unsafe-grant"), 0) << "ZooKeeper itself did nothing wrong";
  // The stalled holder learnt that its lock was lost: a lock-lost op of its
  // process, recorded when it went on, naming the token of a pause's hold.
  const auto lost = LocksLost(f.history);
  ASSERT_FALSE(lost.empty()) << "no lock-lost in the history";
  for (const Op& l : lost) {
    EXPECT_NE(l.error.find("lock lost"), std::string::npos) << l.error;
    int64_t paused_at = -1;
    for (const Op& op : f.history) {
      if (op.time >= l.time) break;
      if (op.process == l.process && op.f == "pause" && op.type == OpType::kInvoke) {
        paused_at = op.time;
      }
    }
    EXPECT_GE(paused_at, 0) << "a lock lost by a process that never stalled: " << l.error;
  }
  // The verdict comes from the session, not a lease: a ZooKeeper hold is
  // valid until its client is cut off. A holder told of its loss has its
  // validity end where the notice says its session was cut off, and each
  // expired-lease use names a holder cut off before the overlap began.
  int expired = 0, explained = 0;
  for (const auto& a : f.results["anomalies"]) {
    if (a.value("class", "") != "expired-lease-use") continue;
    ++expired;
    bool cut_off_before = false;
    for (const auto& h : a["holders"]) {
      EXPECT_EQ(h["session_lease"], true) << h.dump();
      if (!h.contains("lock_lost")) continue;
      const Op& notice = f.history.at(h["lock_lost"]["index"].get<size_t>());
      ASSERT_TRUE(notice.value.contains("cut_off_ms")) << notice.value.dump();
      const int64_t cut_off = notice.time - notice.value["cut_off_ms"].get<int64_t>() * 1'000'000;
      EXPECT_EQ(h["lease_end"], cut_off) << a.dump();
      cut_off_before |= cut_off < a["overlap_ns"][0].get<int64_t>();
    }
    explained += cut_off_before;
  }
  EXPECT_EQ(explained, expired) << f.results["anomalies"].dump();
  // The report draws each loss on the lock-lost lane, at the process it hit.
  const ReportModel model = ReportModel::Build(f.history, f.results);
  std::multiset<int64_t> drawn, told;
  for (const FaultView& v : model.faults()) {
    if (v.family == "lock-lost" && v.point) drawn.insert(v.process);
  }
  for (const Op& l : lost) told.insert(l.process);
  EXPECT_EQ(drawn, told);
}

// zk-rw: readers (70% of acquires) on one lock, holding long enough to meet.
std::vector<std::string> ReadersAndWriters(std::vector<std::string> more = {}) {
  std::vector<std::string> flags = {"--client", "zk-rw", "--read-fraction", "0.7", "--keys", "1",
                                    "--concurrency", "8", "--hold", "20-60"};
  flags.insert(flags.end(), more.begin(), more.end());
  return flags;
}

const nlohmann::json& RwStats(const Finished& f) {
  return f.results["stats"]["rw-lock"]["stats"];
}

TEST(ZookeeperIntegrationTest, ZkRwReadersShareAndNoWriterOverlapsAnyone) {
  Finished f = RunZookeeper(ReadersAndWriters());
  ASSERT_EQ(f.code, 0) << f.out << f.results["anomalies"].dump();
  const auto& rw = RwStats(f);
  std::cout << "zk-rw, no faults: " << rw.dump() << "\n";
  EXPECT_GT(rw["reader_overlaps"].get<int>(), 0) << "the lock must not be secretly exclusive";
  EXPECT_GT(rw["write_holds"].get<int>(), 10);
  EXPECT_GT(rw["read_holds"].get<int>(), 10);
  EXPECT_EQ(rw["double_holders"], 0);
  EXPECT_EQ(f.results["stats"]["linearizable-rw-lock"]["valid"], true)
      << f.results["stats"].dump();
  // Every acquire says its mode; every ok one carries its node's czxid.
  for (const Op& op : f.history) {
    if (op.f == "acquire" && op.type == OpType::kInvoke) {
      ASSERT_TRUE(op.value.contains("mode")) << op.value.dump();
    }
    if (op.f == "acquire" && op.type == OpType::kOk) {
      ASSERT_TRUE(op.value.contains("fence")) << op.value.dump();
    }
  }
}

TEST(ZookeeperIntegrationTest, ZkRwUnderLeaderKillsAndPartitionsGrantsNoUnsafeLock) {
  const std::vector<std::vector<std::string>> faults = {
      {"--nemesis", "kill", "--kill-target", "primary", "--nemesis-interval", "3"},
      {"--nemesis", "partition", "--nemesis-interval", "3"}};
  for (const auto& fault : faults) {
    Finished f = RunZookeeper(ReadersAndWriters(fault));
    EXPECT_EQ(f.code, 0) << fault[1] << "\n" << f.out << f.results["anomalies"].dump();
    EXPECT_EQ(RwStats(f)["double_holders"], 0) << fault[1];
    std::cout << "zk-rw, " << fault[1] << ": " << RwStats(f).dump() << "\n";
    const std::string begin = fault[1] == "kill" ? "kill" : "partition";
    EXPECT_FALSE(NemesisDone(f.history, begin).empty()) << fault[1];
  }
}

// The debate's row 8: a holder whose work outlasts its session, cut off from
// every peer (its own address dropped on their side) for longer than the
// session timeout, still acts as a holder after the ensemble expired its
// session and granted the lock to the next client: expired-lease double
// holders. The same long holds with no partition are valid: the session,
// kept alive by heartbeats, keeps the lock.
nlohmann::json LongHolds() {
  return {{"backend", "zookeeper"}, {"client", "zk-fair"}, {"concurrency", 4}, {"keys", 1},
          {"hold", "2000-2500"},    {"lease_ms", 20000},   {"session_timeout_ms", 1000},
          {"client_timeout_ms", 3000}, {"time_limit_s", 12}, {"seed", 5}};
}

TEST(ZookeeperIntegrationTest, AHolderCutOffPastItsSessionMakesExpiredLeaseDoubleHolders) {
  TempDir config_dir;
  nlohmann::json config = LongHolds();
  config["steps"] = {{{"after", {{"f", "acquire"}, {"key", "lock-0"}}},
                      {"f", "partition"},
                      {"value", {{"shape", "clients-from-nodes"}, {"clients", {"$event.process"}}}}},
                     {{"at_ms", 9000}, {"f", "heal"}}};
  Finished f = RunZookeeper({"--config", WriteConfigFile(config_dir.path(), config)});
  ASSERT_EQ(f.code, 1) << f.out;
  const auto classes = Classes(f.results);
  EXPECT_GE(Count(classes, "expired-lease-use"), 1) << f.results["anomalies"].dump();
  EXPECT_EQ(Count(classes, "unsafe-grant"), 0) << "the ensemble did nothing wrong";
  const auto cuts = NemesisDone(f.history, "partition");
  ASSERT_EQ(cuts.size(), 1u);
  EXPECT_TRUE(cuts[0].error.empty()) << cuts[0].error;
  // The cut-off holder is told, while cut off, once the cut outlasts its
  // session timeout (not only when it tries to release).
  const auto lost = LocksLost(f.history);
  ASSERT_EQ(lost.size(), 1u) << "one holder was cut off";
  EXPECT_GT(lost[0].time, cuts[0].time);
  EXPECT_LT(lost[0].time, 9'000'000'000) << "before the heal";
  EXPECT_NE(lost[0].error.find("longer than the session timeout"), std::string::npos)
      << lost[0].error;
  int64_t cut_process = -1;
  for (const Op& op : f.history) {
    if (op.is_nemesis() && op.f == "partition" && op.type == OpType::kInvoke) {
      cut_process = op.value["clients"][0].get<int64_t>();
      break;
    }
  }
  EXPECT_EQ(lost[0].process, cut_process) << cuts[0].value.dump();
}

TEST(ZookeeperIntegrationTest, LongHoldsWithoutAPartitionAreValid) {
  TempDir config_dir;
  Finished f = RunZookeeper({"--config", WriteConfigFile(config_dir.path(), LongHolds())});
  EXPECT_EQ(f.code, 0) << f.out << f.results["anomalies"].dump();
  EXPECT_GE(OkAcquires(f.history), 3);
}

// Once disabled: on a loaded machine zk-naive measured 0.78 watch
// notifications per release against zk-fair's 1.0 (2.98 idle). The cause was
// a lost wake-up, not the count: a watch that fired while the waiter was
// still being resumed from its Exists reply woke nobody, and the waiter slept
// to its deadline (10 s here: the rest of the run), setting no more watches.
// The busier the machine, the more waiters were lost. WaitForEvent(deadline,
// seen) now returns at once for an event since the Exists was sent; under a
// load average of 10 on 2 cores zk-naive measures 8.8 (2.7 without the fix).
//
// `clients` clients on one lock: a zk-fair release wakes only the next
// waiter, a zk-naive release wakes every waiter. Both figures come from
// results.json (client-stats, per_release.watch_events).
void ExpectTheHerdEffectAt(int clients) {
  const std::vector<std::string> contended = {"--concurrency",    std::to_string(clients),
                                              "--keys",           "1",
                                              "--hold",           "5-20",
                                              "--client-timeout", "10000"};
  auto with = [&](const std::string& recipe) {
    std::vector<std::string> flags = contended;
    flags.insert(flags.end(), {"--client", recipe});
    return RunZookeeper(flags);
  };
  Finished fair = with("zk-fair");
  Finished naive = with("zk-naive");
  ASSERT_EQ(fair.code, 0) << fair.out;
  ASSERT_EQ(naive.code, 0) << naive.out;
  const double fair_per = WatchEventsPerRelease(fair);
  const double naive_per = WatchEventsPerRelease(naive);
  std::cout << "watch notifications per release, " << clients << " clients: zk-fair "
            << fair_per << ", zk-naive " << naive_per << "\n";
  EXPECT_LE(fair_per, 1.2);
  EXPECT_GT(naive_per, 2 * fair_per);
}

TEST(ZookeeperIntegrationTest, TheHerdEffectShowsInWatchNotificationsPerReleaseAt10Clients) {
  ExpectTheHerdEffectAt(10);
}

TEST(ZookeeperIntegrationTest, TheHerdEffectShowsInWatchNotificationsPerReleaseAt50Clients) {
  ExpectTheHerdEffectAt(50);
}

}  // namespace
}  // namespace locksmith::testing
