// The ZooKeeper lock libraries through the exec protocol on a real ensemble:
// kazoo's Lock (adapters/kazoo/, Debian python3-kazoo) and Apache Curator's
// InterProcessMutex (adapters/curator/, Debian libcurator-recipes-java and a
// JDK). With no faults each is valid and does >= 1,000 ops in 20 s; a real
// SIGSTOP of the holder's process longer than its session makes expired-lease
// double holders (ZooKeeper expired the session and granted the lock to the
// next waiter while the stopped holder still acted as holder: Curator's tech
// note 10, reproduced with Curator itself); a stop shorter than the session
// breaks nothing. kazoo, which takes no source address, runs in a client
// host of its own, so a partition cuts one kazoo client off every server
// while the others go on; a kazoo wait in the lock's queue ends at the
// request's wait_ms, not past its deadline. A machine without a library
// fails naming its package.
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

TEST_P(ZookeeperAdapterTest, NoFaultsIsValid) {
  FinishedRun f = RunAndLoad({"--backend", "zookeeper", "--client", Client(), "--seed", "2",
                              "--time-limit", "20", "--hold", "0-2", "--backoff", "0-2"},
                             seconds(150));
  EXPECT_EQ(f.code, 0) << f.out;
  // Every one of the ten workers acquired, and releases went through (how
  // many is the machine's pace, not the adapter's correctness).
  EXPECT_EQ(WorkersWith(f.history, "acquire", OpType::kOk, 10).size(), 10u) << f.out;
  EXPECT_GT(Count(f.history, "release", OpType::kOk), 0) << f.out;
  EXPECT_EQ(ClientStat(f.results, "program_misbehaved"), 0) << f.results["stats"].dump();
}

TEST_P(ZookeeperAdapterTest, ASigstopPastTheSessionMakesExpiredLeaseDoubleHolders) {
  FinishedRun f = RunAndLoad(PauseFlags("3000", "1000"), seconds(150));
  ASSERT_EQ(f.code, 1) << f.out;
  const auto classes = AnomalyClasses(f.results);
  EXPECT_GE(Count(classes, "expired-lease-use"), 1);
  EXPECT_EQ(classes.count("unsafe-grant"), 0u) << "ZooKeeper itself did nothing wrong";
  EXPECT_GE(ClientStat(f.results, "program_stops"), 1) << f.results["stats"].dump();
}

TEST_P(ZookeeperAdapterTest, ASigstopShorterThanTheSessionBreaksNothing) {
  // The stops take effect (the ledger observes them) but never outlast the
  // session: no anomaly, and the run is valid, the pauses counted as observed
  // and none past the session.
  FinishedRun f = RunAndLoad(PauseFlags("800", "2000"), seconds(150));
  EXPECT_EQ(f.code, 0) << f.out;
  EXPECT_TRUE(f.results["anomalies"].empty()) << f.results["anomalies"];
  EXPECT_GE(ClientStat(f.results, "program_stops"), 1) << f.results["stats"].dump();
  nlohmann::json pauses;
  for (const auto& family : f.results["faults"]["families"]) {
    if (family["family"] == "client-pause") pauses = family;
  }
  ASSERT_TRUE(pauses.is_object()) << f.results["faults"];
  EXPECT_GE(pauses.value("observed", 0), 1) << pauses;
  EXPECT_EQ(pauses.value("past_lease", -1), 0) << pauses;
}

// kazoo binds no address of its own: the program's network namespace holds
// its client's address, so cutting client 0 off every host cuts it off
// ZooKeeper. During the windows none of worker 0's ops succeeds (the one in
// flight at the cut ends info) while the other two keep acquiring; RunAndLoad checks nothing is left (namespaces,
// programs) after the run.
TEST(KazooClientHostTest, OneClientCutOffEveryServerWhileTheOthersGoOn) {
  ASSERT_EQ(std::system(kLibraries[0].check.c_str()), 0) << kLibraries[0].missing;
  FinishedRun f = RunAndLoad(
      {"--backend", "zookeeper", "--client",
       "exec:" + std::string(LOCKSMITH_SOURCE_DIR) + "/adapters/" + kLibraries[0].adapter,
       "--seed", "5", "--time-limit", "6", "--concurrency", "3", "--keys", "40", "--hold", "0-5", "--acquire-wait-ms", "0",
       "--nemesis", "partition", "--partition-shape", "clients-from-nodes",
       "--partition-clients", "0", "--nemesis-interval", "2", "--partition-ms", "2500"},
      seconds(120));
  ASSERT_TRUE(f.results.contains("valid")) << f.out;
  EXPECT_NE(f.log.find("each in a network namespace of its own"), std::string::npos) << f.log;
  // Inside a window: from the partition's completion (its rules in place,
  // plus a reply already on its way) to its heal's invocation.
  const int64_t margin = 200'000'000;
  int64_t cut_since = -1;
  int windows = 0, zero_ok = 0, zero_info = 0, others_ok = 0;
  for (const Op& op : f.history) {
    zero_info += op.is_client() && op.process % 3 == 0 && op.type == OpType::kInfo;
    if (op.is_nemesis() && op.f == "partition" && op.type == OpType::kInfo) {
      cut_since = op.time + margin;
      ++windows;
    }
    if (op.is_nemesis() && op.f == "heal") cut_since = -1;
    if (!op.is_client() || op.type == OpType::kInvoke || cut_since < 0 || op.time < cut_since) {
      continue;
    }
    if (op.process % 3 == 0) {
      zero_ok += op.type == OpType::kOk;
    } else {
      others_ok += op.type == OpType::kOk && op.f == "acquire";
    }
  }
  ASSERT_GE(windows, 1) << f.out;
  EXPECT_EQ(zero_ok, 0) << "client 0 reached ZooKeeper through the cut";
  EXPECT_GE(zero_info, 1) << "no op of client 0 was left unanswered by the cut";
  EXPECT_GE(others_ok, 1) << "the other clients stopped too";
}

// Six kazoo clients queue on one lock held 300-600 ms at a time, each
// acquire waiting at most 1 s. kazoo's Lock.acquire(timeout=) starts its
// timeout again whenever a predecessor leaves the queue, so its waits ran
// past the request's deadline and the harness killed and restarted the
// program (19 times in 10 s before); the adapter ends the wait itself at
// wait_ms (a cancel), so a wait that ran out is a fail, "busy", and the
// programs all answer.
TEST(KazooQueueTest, AWaitInTheQueueEndsAtWaitMsWithAFail) {
  ASSERT_EQ(std::system(kLibraries[0].check.c_str()), 0) << kLibraries[0].missing;
  FinishedRun f = RunAndLoad(
      {"--backend", "zookeeper", "--client",
       "exec:" + std::string(LOCKSMITH_SOURCE_DIR) + "/adapters/" + kLibraries[0].adapter,
       "--seed", "1", "--time-limit", "10", "--concurrency", "6", "--keys", "1", "--hold",
       "300-600", "--acquire-wait-ms", "1000"},
      seconds(120));
  EXPECT_EQ(f.code, 0) << f.out;
  int waited_out = 0;
  for (const Op& op : f.history) {
    if (!op.is_client() || op.f != "acquire" || op.type != OpType::kFail) continue;
    waited_out += op.value.value("gave_up", "") == "busy" &&
                  op.value.value("waited_ms", int64_t{0}) >= 1000;
  }
  EXPECT_GE(waited_out, 1) << "no wait in the queue ran out";
  EXPECT_EQ(ClientStat(f.results, "program_misbehaved"), 0) << f.results["stats"].dump();
}

INSTANTIATE_TEST_SUITE_P(Libraries, ZookeeperAdapterTest, ::testing::ValuesIn(kLibraries),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace locksmith::testing
