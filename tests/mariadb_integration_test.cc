// The mariadb backend end to end, on a MariaDB server of the run's own:
// both lock clients are valid with no fault over thousands of acquires; a
// server killed and restarted while a holder works forgets its lock, so a
// waiting client takes it again (an unsafe grant: the holder's lock died with
// its connection, and it did not know); a holder cut off from the server,
// whose connection the server aborts, overlaps the next holder; with
// --fencing on the same cut leaves the inventory exact (the stale holder's
// writes are rejected); server and client pauses strike and stay safe; and
// nothing of a run is left behind (RunAndLoad checks: no mariadbd, no
// namespace or rule), also after SIGINT.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>

#include "base/testing/temp_dir.h"
#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

using std::chrono::seconds;

FinishedRun RunMariadb(const std::vector<std::string>& flags) {
  std::vector<std::string> args = {"--backend", "mariadb", "--seed", "3"};
  args.insert(args.end(), flags.begin(), flags.end());
  return RunAndLoad(args, seconds(120));
}

// Releases that found the holder's connection, and with it its lock, gone.
int ReleasesOfLostLocks(const History& history) {
  int n = 0;
  for (const Op& op : history) {
    n += op.f == "release" && op.type == OpType::kFail &&
         op.error.find("lock lost") != std::string::npos;
  }
  return n;
}

// One lock, four clients holding it 2.5-3 s each; once the first holds it,
// `fault` strikes 200 ms later.
nlohmann::json HeldWhile(const std::string& client, nlohmann::json fault) {
  fault["after"] = {{"f", "acquire"}, {"key", "lock-0"}};
  fault["delay_ms"] = 200;
  return {{"backend", "mariadb"}, {"client", client}, {"workload", "mutex"}, {"seed", 3},
          {"concurrency", 4},     {"keys", 1},        {"hold", "2500-3000"}, {"time_limit_s", 6},
          {"steps", nlohmann::json::array({fault})}};
}

FinishedRun RunConfig(nlohmann::json config) {
  TempDir dir;
  return RunAndLoad({"--config", WriteConfigFile(dir.path(), config)}, seconds(120));
}

TEST(MariadbIntegrationTest, EachClientWithoutFaultsIsValid) {
  for (const std::string client : {"mysql-get-lock", "mysql-for-update"}) {
    FinishedRun f = RunMariadb({"--client", client, "--time-limit", "5", "--keys", "10",
                                "--hold", "1-3", "--fencing", "on"});
    ASSERT_EQ(f.code, 0) << client << "\n" << f.out;
    std::smatch ready;
    ASSERT_TRUE(std::regex_search(f.out, ready, std::regex("\"ready_ms\":([0-9]+)"))) << f.out;
    const int acquires = Count(f.history, "acquire", OpType::kOk);
    std::cout << client << ": server ready after " << ready[1] << " ms, " << acquires
              << " ok acquires in 5 s\n";
    // Every client took a lock and gave it back, however slowly a loaded
    // machine ran it (about 5000 grants, and the server ready in ~1 s, idle).
    EXPECT_EQ(WorkersWith(f.history, "acquire", OpType::kOk, 10).size(), 10u) << client;
    EXPECT_EQ(WorkersWith(f.history, "release", OpType::kOk, 10).size(), 10u) << client;
    // Each grant of a key carries a fence above the one before it.
    std::map<std::string, int64_t> last;
    for (const Op& op : f.history) {
      if (op.f != "acquire" || op.type != OpType::kOk) continue;
      ASSERT_TRUE(op.value.contains("fence")) << op.value.dump();
      const int64_t fence = op.value["fence"].get<int64_t>();
      EXPECT_GT(fence, last[op.key]) << client << " " << op.key;
      last[op.key] = fence;
    }
  }
}

TEST(MariadbIntegrationTest, ARestartWhileAHolderWorksIsAnUnsafeGrant) {
  nlohmann::json config = HeldWhile("mysql-get-lock", {{"f", "kill"}, {"value", {{"node", "n1"}}}});
  config["steps"].push_back({{"at_ms", 600}, {"f", "restart"}});
  FinishedRun f = RunConfig(config);
  ASSERT_EQ(f.code, 1) << f.out;
  const auto classes = AnomalyClasses(f.results);
  // Both holders' connections were alive as far as each knew: the server
  // broke mutual exclusion by forgetting the lock.
  EXPECT_GE(Count(classes, "unsafe-grant"), 1) << f.results["anomalies"];
  EXPECT_EQ(Count(classes, "expired-lease-use"), 0) << f.results["anomalies"];
  EXPECT_GE(ReleasesOfLostLocks(f.history), 1) << "the first holder never learnt of its loss";
}

TEST(MariadbIntegrationTest, AHolderCutOffTheServerOverlapsTheNext) {
  FinishedRun f = RunConfig(HeldWhile(
      "mysql-for-update",
      {{"f", "partition"},
       {"value", {{"shape", "clients-from-nodes"}, {"clients", {"$event.process"}}}}}));
  ASSERT_EQ(f.code, 1) << f.out;
  EXPECT_GE(Count(AnomalyClasses(f.results), "unsafe-grant"), 1) << f.results["anomalies"];
}

TEST(MariadbIntegrationTest, FencingKeepsTheInventoryExactWhenAHolderIsCutOff) {
  nlohmann::json fault = {{"f", "partition"},
                          {"after", {{"f", "acquire"}, {"key", "item-0"}}},
                          {"delay_ms", 200},
                          {"value",
                           {{"shape", "clients-from-nodes"},
                            {"clients", {"$event.process"}},
                            {"nodes", "n1"}}}};
  FinishedRun f = RunConfig({{"backend", "mariadb"}, {"workload", "inventory"}, {"seed", 3},
                             {"fencing", "on"}, {"concurrency", 4}, {"work", "2500"},
                             {"stock", 100}, {"time_limit_s", 6},
                             {"steps", nlohmann::json::array({fault})}});
  EXPECT_EQ(f.code, 0) << f.out << f.results["anomalies"];
  int rejected = 0;
  for (const Op& op : f.history) {
    rejected += op.type == OpType::kFail && op.error.find("fence") != std::string::npos;
  }
  EXPECT_GE(rejected, 1) << "no stale write was stopped";
  EXPECT_EQ(f.results["stats"]["fencing"]["valid"], true);
}

// Each family on its own: a client-pause waiting for a holder while the
// server is paused would hold up the server's resume.
TEST(MariadbIntegrationTest, ServerAndClientPausesStrikeAndStaySafe) {
  for (const std::string family : {"pause", "client-pause"}) {
    FinishedRun f = RunMariadb({"--nemesis", family, "--nemesis-interval", "2", "--" + family +
                                "-ms", "1000", "--time-limit", "6"});
    EXPECT_EQ(f.code, 0) << f.out << f.results["anomalies"];
    EXPECT_TRUE(FamiliesStruck(f.history).contains(family)) << f.out;
  }
}

TEST(MariadbIntegrationTest, AnInterruptedRunLeavesNoServerBehind) {
  TempDir dir;
  std::filesystem::permissions(dir.path(), std::filesystem::perms::others_exec,
                               std::filesystem::perm_options::add);
  LocksmithProcess run(dir.path(), {"run", "--store", "store", "--backend", "mariadb",
                                    "--time-limit", "60"});
  ASSERT_TRUE(WaitForText(dir.path() + "/stderr.txt", "workload mutex for", seconds(60)))
      << run.Stderr();
  run.Signal(SIGINT);
  const std::optional<int> code = run.Wait(seconds(60));
  ASSERT_TRUE(code.has_value()) << run.Stdout();
  EXPECT_EQ(*code, 2) << run.Stdout();  // cut short: unknown
  const std::string run_dir = LatestRun(dir.path() + "/store");
  ExpectNothingLeft(run_dir);
  // The server's data went with it; its log stays with the run.
  EXPECT_FALSE(std::filesystem::exists(run_dir + "/nodes/n1/mariadb"));
  EXPECT_TRUE(std::filesystem::exists(run_dir + "/nodes/n1/mariadb.log"));
}

}  // namespace
}  // namespace locksmith::testing
