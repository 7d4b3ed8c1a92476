// The ZooKeeper lock libraries through the exec protocol on a real ensemble:
// kazoo's Lock (adapters/kazoo/, Debian python3-kazoo) and Apache Curator's
// InterProcessMutex (adapters/curator/, Debian libcurator-recipes-java and a
// JDK). With no faults each is valid and does >= 1,000 ops in 20 s; a real
// SIGSTOP of the holder's process longer than its session makes expired-lease
// double holders (ZooKeeper expired the session and granted the lock to the
// next waiter while the stopped holder still acted as holder: Curator's tech
// note 10, reproduced with Curator itself); a stop shorter than the session
// breaks nothing. A machine without a library fails naming its package.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

using std::chrono::seconds;

struct Library {
  std::string name;
  std::string adapter;  // under adapters/
  std::string check;    // a shell command that succeeds when the library is there
  std::string missing;  // what to install otherwise
};

const Library kLibraries[] = {
    {"kazoo", "kazoo/kazoo_lock.py", "/usr/bin/python3 -c 'import kazoo' 2>/dev/null",
     "kazoo is missing: install Debian's python3-kazoo (scripts/setup.sh --tests)"},
    {"curator", "curator/curator_lock",
     "test -f /usr/share/java/curator-recipes.jar && command -v javac >/dev/null",
     "Curator is missing: install Debian's libcurator-recipes-java and default-jdk-headless "
     "(scripts/setup.sh --tests)"},
};

class ZookeeperAdapterTest : public ::testing::TestWithParam<Library> {
 protected:
  void SetUp() override {
    ASSERT_EQ(std::system(GetParam().check.c_str()), 0) << GetParam().missing;
  }
  std::string Client() const {
    return "exec:" + std::string(LOCKSMITH_SOURCE_DIR) + "/adapters/" + GetParam().adapter;
  }
  std::vector<std::string> PauseFlags(const std::string& pause_ms,
                                      const std::string& session_ms) const {
    return {"--backend", "zookeeper", "--client", Client(), "--seed", "3", "--time-limit", "12",
            "--keys", "1", "--concurrency", "5", "--hold", "50-100", "--session-timeout",
            session_ms, "--nemesis", "client-pause", "--nemesis-interval", "4",
            "--client-pause-ms", pause_ms};
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

TEST_P(ZookeeperAdapterTest, NoFaultsIsValid) {
  FinishedRun f = RunAndLoad({"--backend", "zookeeper", "--client", Client(), "--seed", "2",
                              "--time-limit", "20", "--hold", "0-2", "--backoff", "0-2"},
                             seconds(150));
  EXPECT_EQ(f.code, 0) << f.out;
  EXPECT_GE(Count(f.history, "acquire", OpType::kOk) + Count(f.history, "release", OpType::kOk),
            1000)
      << f.out;
  EXPECT_EQ(ClientStat(f.results, "program_misbehaved"), 0) << f.results["stats"].dump();
}

TEST_P(ZookeeperAdapterTest, ASigstopPastTheSessionMakesExpiredLeaseDoubleHolders) {
  FinishedRun f = RunAndLoad(PauseFlags("3000", "1000"), seconds(150));
  ASSERT_EQ(f.code, 1) << f.out;
  const auto classes = AnomalyClasses(f.results);
  EXPECT_GE(classes.count("expired-lease-use") ? classes.at("expired-lease-use") : 0, 1);
  EXPECT_EQ(classes.count("unsafe-grant"), 0u) << "ZooKeeper itself did nothing wrong";
  EXPECT_GE(ClientStat(f.results, "program_stops"), 1) << f.results["stats"].dump();
}

TEST_P(ZookeeperAdapterTest, ASigstopShorterThanTheSessionBreaksNothing) {
  // The stops never outlast the session, so none takes the effect a pause is
  // for: no anomaly, and the fault ledger makes the verdict unknown, not valid.
  FinishedRun f = RunAndLoad(PauseFlags("800", "2000"), seconds(150));
  EXPECT_EQ(f.code, 2) << f.out;
  EXPECT_TRUE(f.results["anomalies"].empty()) << f.results["anomalies"];
  EXPECT_GE(ClientStat(f.results, "program_stops"), 1) << f.results["stats"].dump();
}

INSTANTIATE_TEST_SUITE_P(Libraries, ZookeeperAdapterTest, ::testing::ValuesIn(kLibraries),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace locksmith::testing
