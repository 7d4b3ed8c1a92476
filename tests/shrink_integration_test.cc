// `locksmith shrink` end to end on real servers: a Redis run without
// persistence under kill, pause and partition noise is invalid (unsafe
// grants: the restarted master forgot the locks it held); shrink replays
// its faults as scripted steps and keeps the kill alone; the minimal.json
// it writes, run as a scenario of the library, shows the unsafe grant
// again. About a minute: a 6 s run, then some ten shorter replays.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "base/testing/temp_dir.h"
#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

using std::chrono::seconds;

TEST(ShrinkIntegrationTest, ARedisRunUnderNoiseShrinksToTheKillAlone) {
  TempDir dir;
  const std::string store = dir.path() + "/store";
  // The noisy run: every lock is held 2-3 s under a 20 s lease, so each
  // kill forgets held locks that waiting clients then take (an unsafe
  // grant whatever the machine's load), and the pauses and partitions,
  // far shorter than the lease, grant nothing twice. With 200-400 ms
  // holds a kill caught a held lock only at some rate: under load a replay
  // could miss it in all its tries.
  std::string out;
  ASSERT_EQ(RunLocksmith(dir.path(),
                         {"run", "--backend", "redis", "--workload", "mutex", "--nemesis",
                          "kill,pause,partition", "--redis-persistence", "none", "--hold",
                          "2000-3000", "--lease", "20000", "--time-limit", "6",
                          "--nemesis-interval", "2", "--seed", "2", "--store", store},
                         seconds(90), &out),
            1)
      << out;
  const std::string run = LatestRun(store);
  const nlohmann::json results = ReadJson(run + "/results.json");
  std::set<std::string> families;
  for (const auto& f : results["faults"]["families"]) {
    if (f["observed"].get<int>() > 0) families.insert(f["family"].get<std::string>());
  }
  ASSERT_EQ(families, (std::set<std::string>{"kill", "pause", "partition"}));
  ASSERT_GT(Count(AnomalyClasses(results), "unsafe-grant"), 0) << results["anomalies"];

  ASSERT_EQ(RunLocksmith(dir.path(), {"shrink", run, "--tries", "2"}, seconds(600), &out), 0)
      << out;
  // Every fault family of the run was among the candidates; the kill alone is kept.
  const std::string shrunk = run + "/shrink";
  const nlohmann::json record = ReadJson(shrunk + "/shrink.json");
  std::set<std::string> removed;
  for (const auto& w : record["windows"]) {
    if (!w["kept"].get<bool>()) removed.insert(w["family"].get<std::string>());
  }
  EXPECT_TRUE(removed.contains("pause") && removed.contains("partition")) << record["windows"];
  const nlohmann::json minimal = ReadJson(shrunk + "/minimal.json");
  ASSERT_FALSE(minimal["steps"].empty()) << minimal;
  int kills = 0;
  for (const auto& step : minimal["steps"]) {
    const std::string f = step["f"];
    EXPECT_TRUE(f == "kill" || f == "restart") << step;
    kills += f == "kill" ? 1 : 0;
  }
  EXPECT_EQ(kills, 1) << minimal["steps"];
  EXPECT_EQ(minimal["nemesis"], nlohmann::json({"kill"}));
  EXPECT_EQ(minimal["predicted_anomaly"], "unsafe-grant");
  EXPECT_EQ(minimal["seed"], ReadJson(run + "/config.json")["seed"]) << "the run's own seed";
  EXPECT_NE(out.find("removed: pause"), std::string::npos) << out;
  EXPECT_NE(out.find("kept:    kill"), std::string::npos) << out;
  EXPECT_TRUE(std::filesystem::exists(shrunk + "/shrink.html"));

  // The scenario, run as one of the library, reproduces: as shrink judged a
  // candidate, one of --tries runs shows the kind.
  ::setenv("LOCKSMITH_SCENARIOS", shrunk.c_str(), 1);
  bool reproduced = false;
  for (int attempt = 0; attempt < 2 && !reproduced; ++attempt) {
    const std::string again = dir.path() + "/again" + std::to_string(attempt);
    std::string rerun;
    const int code = RunLocksmith(dir.path(), {"run", "--scenario", "minimal", "--store", again},
                                  seconds(90), &rerun);
    ASSERT_TRUE(code == 0 || code == 1) << rerun;
    const nlohmann::json r = ReadJson(LatestRun(again) + "/results.json");
    reproduced = code == 1 && Count(AnomalyClasses(r), "unsafe-grant") > 0 &&
                 r["debate"]["matches"] == true;
  }
  ::unsetenv("LOCKSMITH_SCENARIOS");
  EXPECT_TRUE(reproduced);
}

TEST(ShrinkIntegrationTest, RefusesAValidRunWithOneLine) {
  TempDir dir;
  const std::string store = dir.path() + "/store";
  std::string out;
  ASSERT_EQ(RunLocksmith(dir.path(),
                         {"run", "--backend", "redis", "--time-limit", "1", "--store", store},
                         seconds(60), &out),
            0)
      << out;
  LocksmithProcess shrink(dir.path(), {"shrink", LatestRun(store)});
  ASSERT_EQ(shrink.Wait(seconds(30)), 254);
  EXPECT_EQ(shrink.Stderr(), "locksmith: cannot shrink: " + LatestRun(store) +
                                 " is valid: shrink takes an invalid run, and there is no "
                                 "anomaly to reproduce\n");
}

}  // namespace
}  // namespace locksmith::testing
