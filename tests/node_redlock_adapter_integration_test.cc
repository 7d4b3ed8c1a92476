// node-redlock (adapters/node-redlock/: npm redlock 4.2.0 on ioredis) through
// the exec protocol on the five masters of the redlock backend: with no faults
// it is valid and does >= 1,000 ops in 20 s; a real SIGSTOP of the holder's
// Node process past its lock's validity makes expired-lease double holders;
// a client-clock strobe of one client's wall clock makes node-redlock, which
// reckons validity on Date.now(), claim a lease its masters no longer hold:
// an unsafe grant.
// A machine without Node.js or the adapter's modules fails naming what to
// install.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

using std::chrono::seconds;

const std::string kFolder = std::string(LOCKSMITH_SOURCE_DIR) + "/adapters/node-redlock";
const std::string kAdapter = kFolder + "/redlock_adapter.js";

class NodeRedlockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(std::system("command -v node >/dev/null"), 0)
        << "Node.js is missing: install Debian's nodejs (scripts/setup.sh --tests)";
    ASSERT_TRUE(std::filesystem::exists(kFolder + "/node_modules/redlock"))
        << "the adapter's modules are missing: npm ci --prefix adapters/node-redlock "
           "(scripts/setup.sh --tests)";
  }
};

TEST_F(NodeRedlockTest, NoFaultsIsValid) {
  FinishedRun f = RunAndLoad({"--backend", "redlock", "--client", "exec:" + kAdapter, "--seed",
                              "2", "--time-limit", "20", "--hold", "0-2", "--backoff", "0-2"},
                             seconds(120));
  EXPECT_EQ(f.code, 0) << f.out;
  EXPECT_GE(Count(f.history, "acquire", OpType::kOk) + Count(f.history, "release", OpType::kOk),
            1000)
      << f.out;
  EXPECT_EQ(ClientStat(f.results, "program_misbehaved"), 0) << f.results["stats"].dump();
}

TEST_F(NodeRedlockTest, ASigstopPastTheValidityMakesExpiredLeaseDoubleHolders) {
  FinishedRun f = RunAndLoad({"--backend", "redlock", "--client", "exec:" + kAdapter, "--seed",
                              "5", "--time-limit", "10", "--nemesis", "client-pause",
                              "--nemesis-interval", "3", "--client-pause-ms", "2500", "--lease",
                              "1000", "--keys", "1"},
                             seconds(120));
  ASSERT_EQ(f.code, 1) << f.out;
  const auto classes = AnomalyClasses(f.results);
  EXPECT_GE(Count(classes, "expired-lease-use"), 1);
  EXPECT_EQ(classes.count("unsafe-grant"), 0u) << "the masters did nothing wrong";
  EXPECT_GE(ClientStat(f.results, "program_stops"), 1) << f.results["stats"].dump();
}

// Client 0's clock swings +-3 s every 2 ms (the shim preloaded into its
// Node process): an acquire that reads Date.now() before a swing down and
// after it measures an elapsed time 6 s too short, so redlock hands back a
// 6 s validity for a 300 ms lock. Holding 350-450 ms, the holder outlives
// the masters' lock while its lease still looks valid, and the next grant
// overlaps it: both leases valid, an unsafe grant the masters did not make.
// Whether an acquire straddles a swing down is chance: in 6 s (some ten of
// client 0's acquires under the strobe) none did in 1 run of 4 here, and
// 18 s make that about 1 in 60 times less likely.
TEST_F(NodeRedlockTest, AClientClockStrobeMakesAnUnsafeGrant) {
  FinishedRun f = RunAndLoad(
      {"--backend", "redlock", "--client", "exec:" + kAdapter, "--seed", "5", "--time-limit", "18",
       "--concurrency", "2", "--keys", "1", "--lease", "300", "--hold", "350-450", "--nemesis",
       "client-clock", "--client-clock-mode", "strobe", "--client-clock-delta", "3000",
       "--client-clock-period", "2", "--client-clock-hold", "900", "--nemesis-interval", "1"},
      seconds(120));
  ASSERT_EQ(f.code, 1) << f.out;
  const auto classes = AnomalyClasses(f.results);
  EXPECT_GE(Count(classes, "unsafe-grant"), 1) << f.out;
  int64_t longest_validity = 0, other_longest = 0;
  for (const Op& op : f.history) {
    if (!op.is_client() || op.f != "acquire" || op.type != OpType::kOk) continue;
    const int64_t validity = op.value.value("validity_ms", int64_t{0});
    int64_t& longest = op.process % 2 == 0 ? longest_validity : other_longest;
    longest = std::max(longest, validity);
  }
  EXPECT_GT(longest_validity, 1000) << "client 0's clock never stretched a lease";
  EXPECT_LE(other_longest, 300) << "client 1's clock moved too";
}

}  // namespace
}  // namespace locksmith::testing
