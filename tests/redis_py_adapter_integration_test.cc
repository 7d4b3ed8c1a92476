// redis-py's Lock (adapters/redis-py/, Debian python3-redis) under locksmith
// through the exec protocol, on real servers: with no faults it is valid and
// does >= 1,000 ops in 20 s on single Redis and on Sentinel; a real SIGSTOP
// of the holder's process longer than its lease (client-pause) makes
// expired-lease double holders, Redis itself doing nothing wrong. A machine
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

int Count(const History& history, const std::string& f, OpType type) {
  int n = 0;
  for (const Op& op : history) n += op.is_client() && op.f == f && op.type == type;
  return n;
}

int64_t ClientStat(const nlohmann::json& results, const std::string& name) {
  const auto& stats = results["stats"]["client-stats"]["stats"];
  return stats.contains(name) ? stats[name].get<int64_t>() : -1;
}

TEST_F(RedisPyTest, NoFaultsIsValidOnRedisAndSentinel) {
  for (const std::string backend : {"redis", "redis-sentinel"}) {
    FinishedRun f = RunAndLoad({"--backend", backend, "--client", "exec:" + kAdapter, "--seed",
                                "2", "--time-limit", "20", "--hold", "0-2", "--backoff", "0-2"},
                               seconds(120));
    EXPECT_EQ(f.code, 0) << backend << ": " << f.out;
    EXPECT_GE(Count(f.history, "acquire", OpType::kOk) + Count(f.history, "release", OpType::kOk),
              1000)
        << backend << ": " << f.out;
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
  EXPECT_GE(classes.count("expired-lease-use") ? classes.at("expired-lease-use") : 0, 1);
  EXPECT_EQ(classes.count("unsafe-grant"), 0u) << "Redis itself did nothing wrong";
  // The pauses were real stops of the program, not a stalled coroutine.
  EXPECT_GE(ClientStat(f.results, "program_stops"), 1) << f.results["stats"].dump();
}

}  // namespace
}  // namespace locksmith::testing
