// redis-py's Lock (adapters/redis-py/, Debian python3-redis) under locksmith
// through the exec protocol, on real servers: with no faults it is valid and
// every worker acquires and releases on single Redis and on Sentinel; a real SIGSTOP
// of the holder's process longer than its lease (client-pause) makes
// expired-lease double holders, Redis itself doing nothing wrong, and with
// the inventory workload and fencing off an oversell; a partition
// cuts one redis-py client off Sentinel's hosts while the others go on; under
// kills a refused connect is a fail, not an info, and a lease counts from
// its SET, so a pause past it is an expired-lease use. A machine
// without python3-redis fails these tests naming the package.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

using std::chrono::seconds;

const std::string kAdapter =
    std::string(LOCKSMITH_SOURCE_DIR) + "/adapters/redis-py/redis_py_lock.py";

class RedisPyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(std::system("/usr/bin/python3 -c 'import redis' 2>/dev/null"), 0)
        << "redis-py is missing: install Debian's python3-redis (scripts/setup.sh --tests)";
  }
};

TEST_F(RedisPyTest, NoFaultsIsValidOnRedisAndSentinel) {
  for (const std::string backend : {"redis", "redis-sentinel"}) {
    FinishedRun f = RunAndLoad({"--backend", backend, "--client", "exec:" + kAdapter, "--seed",
                                "2", "--time-limit", "10", "--hold", "0-2", "--backoff", "0-2"},
                               seconds(120));
    EXPECT_EQ(f.code, 0) << backend << ": " << f.out;
    // Every worker acquired and released, however slowly a loaded machine
    // ran (how many ops a second is the benchmarks' business).
    EXPECT_EQ(WorkersWith(f.history, "acquire", OpType::kOk, 10).size(), 10u) << backend;
    EXPECT_EQ(WorkersWith(f.history, "release", OpType::kOk, 10).size(), 10u) << backend;
    EXPECT_EQ(ClientStat(f.results, "program_misbehaved"), 0) << f.results["stats"].dump();
  }
}

TEST_F(RedisPyTest, ASigstopPastTheLeaseMakesExpiredLeaseDoubleHolders) {
  FinishedRun f = RunAndLoad({"--backend", "redis", "--client", "exec:" + kAdapter, "--seed", "5",
                              "--time-limit", "10", "--nemesis", "client-pause",
                              "--nemesis-interval", "3", "--client-pause-ms", "2500", "--lease",
                              "1000", "--keys", "1"},
                             seconds(120));
  ASSERT_EQ(f.code, 1) << f.out;
  const auto classes = AnomalyClasses(f.results);
  EXPECT_GE(Count(classes, "expired-lease-use"), 1);
  EXPECT_EQ(classes.count("unsafe-grant"), 0u) << "Redis itself did nothing wrong";
  // The pauses were real stops of the program, not a stalled coroutine.
  EXPECT_GE(ClientStat(f.results, "program_stops"), 1) << f.results["stats"].dump();
}

// A Redis SIGKILLed and restarted (the redis-kill-no-persistence scenario:
// 10 clients, a kill every 3 s): while it is down a connect is refused
// before the command is sent, and the adapter answers fail ("nothing sent",
// busy false), not info. Only a request in flight when the
// server died may end info, at most one per worker and kill; answered info,
// each refused connect started a new process at once (thousands of info ops
// in 20 s). The restarted master has forgotten the locks: unsafe grants, as
// the scenario predicts.
TEST_F(RedisPyTest, UnderKillsARefusedConnectIsAFailNotAnInfo) {
  FinishedRun f = RunAndLoad({"--scenario", "redis-kill-no-persistence", "--client",
                              "exec:" + kAdapter, "--seed", "1"},
                             seconds(150));
  ASSERT_EQ(f.code, 1) << f.out;
  EXPECT_GE(Count(AnomalyClasses(f.results), "unsafe-grant"), 1);
  int kills = 0;
  for (const Op& op : NemesisDone(f.history, "kill")) kills += op.error.empty();
  ASSERT_GE(kills, 1) << f.out;
  // The last attempt of an acquire usually finds the server back (its wait
  // outlasts the restart); a release in a window finds it down.
  int refused = 0;
  for (const Op& op : f.history) {
    refused += op.is_client() && op.type == OpType::kFail &&
               op.error.starts_with("nothing sent: ") &&
               op.error.find("Connection refused") != std::string::npos;
  }
  EXPECT_GE(refused, 1) << "no op found the server down";
  const int info = Count(f.history, "acquire", OpType::kInfo) +
                   Count(f.history, "release", OpType::kInfo);
  EXPECT_LE(info, kills * 10) << kills << " kills";
}

// A client stopped inside its critical section for 2.5 s, past its 1 s lease
// (the redis-client-pause-past-lease scenario): another acquires the expired
// lock. The adapter counts each lease from when its SET was sent, so every
// grant's validity is short of the lease by that time, and the pair is an
// expired-lease use, never an unsafe grant: reckoned from the reply, the
// lease outlived Redis's key by the round trip, and a grant just after the
// key expired fell inside it.
TEST_F(RedisPyTest, ALeaseCountsFromTheSetSoAPauseIsAnExpiredLeaseUse) {
  FinishedRun f = RunAndLoad({"--scenario", "redis-client-pause-past-lease", "--client",
                              "exec:" + kAdapter, "--seed", "1"},
                             seconds(120));
  ASSERT_EQ(f.code, 1) << f.out;
  const auto classes = AnomalyClasses(f.results);
  EXPECT_GE(Count(classes, "expired-lease-use"), 1);
  EXPECT_EQ(Count(classes, "unsafe-grant"), 0) << "Redis itself did nothing wrong";
  int grants = 0, full_lease = 0;
  for (const Op& op : f.history) {
    if (!op.is_client() || op.f != "acquire" || op.type != OpType::kOk) continue;
    ++grants;
    full_lease += op.value.value("validity_ms", int64_t{0}) >= 1000;
  }
  EXPECT_GE(grants, 10);
  EXPECT_EQ(full_lease, 0) << "a grant reported the whole lease, counted from its reply";
}

// The inventory workload, fencing off: the harness sells through redis-py's
// lock, and a buyer whose program is stopped past its 500 ms lease between
// reading the stock and writing it writes a stale stock after others sold.
// The inventory checker names the damage with the overlapping buyers: more
// orders than units when selling went on after the stale write (120 units
// sell out in about 5 s at this pace, after the first stop about 3 s in), or
// a final stock above what the orders leave when a loaded machine's pace
// ended the run first (120 acknowledged, 31 left where 0 was expected).
TEST_F(RedisPyTest, ASigstopPastTheLeaseDamagesTheInventoryWithoutFencing) {
  FinishedRun f = RunAndLoad(
      {"--backend", "redis", "--client", "exec:" + kAdapter, "--workload", "inventory", "--items",
       "1", "--stock", "120", "--work", "20", "--concurrency", "5", "--seed", "7", "--time-limit",
       "7", "--nemesis", "client-pause", "--client-pause-ms", "1500", "--nemesis-interval", "2",
       "--lease", "500"},
      seconds(120));
  ASSERT_EQ(f.code, 1) << f.out;
  int damaged = 0;
  for (const auto& a : f.results["anomalies"]) {
    const std::string type = a.value("type", "");
    if (type != "oversold" && type != "lost-update") continue;
    ++damaged;
    EXPECT_FALSE(a["overlapping"].empty()) << a.dump();
  }
  EXPECT_GE(damaged, 1) << f.results["anomalies"];
  EXPECT_GE(ClientStat(f.results, "program_stops"), 1) << f.results["stats"].dump();
}

// The adapter binds its client's own address, so a partition cuts one
// redis-py client off every host of Sentinel's (master, replicas,
// sentinels) while the other five go on: only worker 0's ops fail or end
// info, and the run is valid.
TEST_F(RedisPyTest, OneClientPartitionedOffTheMasterWhileTheOthersGoOn) {
  FinishedRun f = RunAndLoad(
      {"--backend", "redis-sentinel", "--client", "exec:" + kAdapter, "--seed", "4",
       "--time-limit", "10", "--concurrency", "6", "--nemesis", "partition", "--partition-shape",
       "clients-from-nodes", "--partition-clients", "0", "--nemesis-interval", "3",
       "--partition-ms", "2000"},
      seconds(120));
  EXPECT_EQ(f.code, 0) << f.out;
  int cut = 0, others_unanswered = 0, others_ok = 0;
  for (const Op& op : f.history) {
    if (!op.is_client() || op.f != "acquire") continue;
    const bool worker_zero = op.process % 6 == 0;
    if (op.type == OpType::kInfo || (op.type == OpType::kFail && !op.error.empty() &&
                                      op.error != "held by another client")) {
      (worker_zero ? cut : others_unanswered) += 1;
    }
    others_ok += !worker_zero && op.type == OpType::kOk;
  }
  EXPECT_GE(cut, 1) << "the partition cut nothing";
  EXPECT_EQ(others_unanswered, 0);
  EXPECT_GT(others_ok, 100);
}

}  // namespace
}  // namespace locksmith::testing
