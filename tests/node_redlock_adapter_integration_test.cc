// node-redlock (adapters/node-redlock/: npm redlock 4.2.0 on ioredis) through
// the exec protocol on the five masters of the redlock backend: with no faults
// it is valid and does >= 1,000 ops in 20 s; a real SIGSTOP of the holder's
// Node process past its lock's validity makes expired-lease double holders.
// A machine without Node.js or the adapter's modules fails naming what to
// install.
#include <gtest/gtest.h>

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

int Count(const History& history, const std::string& f, OpType type) {
  int n = 0;
  for (const Op& op : history) n += op.is_client() && op.f == f && op.type == type;
  return n;
}

int64_t ClientStat(const nlohmann::json& results, const std::string& name) {
  const auto& stats = results["stats"]["client-stats"]["stats"];
  return stats.contains(name) ? stats[name].get<int64_t>() : -1;
}

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
  EXPECT_GE(classes.count("expired-lease-use") ? classes.at("expired-lease-use") : 0, 1);
  EXPECT_EQ(classes.count("unsafe-grant"), 0u) << "the masters did nothing wrong";
  EXPECT_GE(ClientStat(f.results, "program_stops"), 1) << f.results["stats"].dump();
}

}  // namespace
}  // namespace locksmith::testing
