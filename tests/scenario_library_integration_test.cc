// Every scenario of the library that predicts a verdict (scenarios/*.json
// with "prediction": Redlock's, single Redis's, Sentinel's, ZooKeeper's),
// run by the locksmith binary on three seeds: each run's verdict is the one
// the file predicts (exit code, the debate line agreeing, and for a
// predicted double holder its kind; for a client stalled in flight, what
// that acquire became), and nothing of the run is left behind. One test per
// scenario and seed, so ctest -j runs them side by side. (The one scenario
// without a prediction, redis-setnx-expire-client-crash, predicts a stuck
// lock, not a double holder: tests/client_crash_integration_test.cc.)
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

using std::chrono::seconds;

const char kScenarios[] = LOCKSMITH_SOURCE_DIR "/scenarios";

// The anomaly class each scenario predicting two holders must show.
const std::map<std::string, std::string>& PredictedKinds() {
  static const std::map<std::string, std::string> kinds = {
      {"redlock-restart-no-persistence", "unsafe-grant"},
      {"redlock-clock-jump-kleppmann", "unsafe-grant"},
      {"redlock-client-pause-past-validity", "expired-lease-use"},
      {"redlock-in-flight-pause-wall-clock", "unsafe-grant"},
      {"redis-client-pause-past-lease", "expired-lease-use"},
      {"redis-kill-no-persistence", "unsafe-grant"},
      {"redis-rw-cache-stale-fill", "expired-lease-use"},
      {"redis-watchdog-holder-cut-off", "expired-lease-use"},
      {"sentinel-partition-master-with-minority", "unsafe-grant"},
      {"zookeeper-client-pause-past-session", "expired-lease-use"},
  };
  return kinds;
}

std::vector<std::string> PredictingScenarios() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(kScenarios)) {
    if (entry.path().extension() != ".json") continue;
    if (ReadJson(entry.path().string()).contains("prediction")) {
      names.push_back(entry.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool PausesInFlight(const nlohmann::json& scenario) {
  for (const auto& step : scenario.value("steps", nlohmann::json::array())) {
    if (step.value("f", "") == "client-pause" && step.contains("value") &&
        step["value"].value("at", "") == "in-flight") {
      return true;
    }
  }
  return false;
}

// A scenario that stalls a client in flight: the stall is in the history
// (the pause's end, a lone op of the stalled process) and decided that
// process's acquire: a fail by the validity check when the prediction is N,
// an ok when it is Y.
void ExpectTheStalledAcquire(const std::string& run, const std::string& predicted) {
  std::vector<nlohmann::json> ops;
  std::istringstream lines(ReadText(run + "/history.jsonl"));
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) ops.push_back(nlohmann::json::parse(line));
  }
  auto end = std::find_if(ops.begin(), ops.end(), [](const nlohmann::json& op) {
    return op.value("f", "") == "pause" && op["value"].value("at", "") == "in-flight" &&
           op["value"].value("phase", "") == "end";
  });
  ASSERT_NE(end, ops.end()) << "no in-flight stall in the history";
  const int64_t stalled_ms = (*end)["value"]["stalled_ms"].get<int64_t>();
  auto acquired = std::find_if(end, ops.end(), [&](const nlohmann::json& op) {
    return op["process"] == (*end)["process"] && op.value("f", "") == "acquire" &&
           op.value("type", "") != "invoke";
  });
  ASSERT_NE(acquired, ops.end()) << "the stalled acquire never completed";
  const nlohmann::json& op = *acquired;
  if (predicted == "N") {
    EXPECT_EQ(op["type"], "fail") << op.dump();
    EXPECT_GE(op["value"]["elapsed_ms"].get<int64_t>(), stalled_ms) << op.dump();
    EXPECT_NE(op.value("error", "").find("but validity"), std::string::npos) << op.dump();
  } else {
    EXPECT_EQ(op["type"], "ok") << op.dump();
    EXPECT_LT(op["value"]["elapsed_ms"].get<int64_t>(), stalled_ms) << op.dump();
  }
}

class ScenarioLibraryTest
    : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(ScenarioLibraryTest, VerdictIsThePredictedOne) {
  const auto& [name, seed] = GetParam();
  const std::string file = std::string(kScenarios) + "/" + name + ".json";
  const nlohmann::json scenario = ReadJson(file);
  const std::string predicted = scenario.value("prediction", "");
  ASSERT_TRUE(predicted == "Y" || predicted == "N") << name << " predicts nothing";

  TempDir dir;
  std::string out;
  const int code = RunLocksmith(
      dir.path(), {"run", "--config", file, "--seed", std::to_string(seed), "--store", "store"},
      seconds(120), &out);
  const std::string run = LatestRun(dir.path() + "/store");
  const nlohmann::json results = ReadJson(run + "/results.json");
  EXPECT_EQ(code, predicted == "Y" ? 1 : 0) << out;
  EXPECT_EQ(results["debate"]["predicted"], predicted) << results["debate"].dump();
  EXPECT_EQ(results["debate"]["matches"], true) << results["debate"].dump();
  EXPECT_EQ(results["nemesis"].value("failed", 0), 0) << "a scripted fault failed:\n" << out;
  if (predicted == "Y") {
    auto kind = PredictedKinds().find(name);
    ASSERT_NE(kind, PredictedKinds().end()) << name << ": add its anomaly kind above";
    bool seen = false;
    for (const auto& a : results["anomalies"]) seen |= a.value("class", "") == kind->second;
    EXPECT_TRUE(seen) << name << " shows no " << kind->second << ": " << results["anomalies"];
  }
  if (PausesInFlight(scenario)) ExpectTheStalledAcquire(run, predicted);
  ExpectNothingLeft(run);
}

INSTANTIATE_TEST_SUITE_P(
    Library, ScenarioLibraryTest,
    ::testing::Combine(::testing::ValuesIn(PredictingScenarios()), ::testing::Values(1, 2, 3)),
    [](const auto& info) {
      std::string name = std::get<0>(info.param) + "_seed" + std::to_string(std::get<1>(info.param));
      std::replace(name.begin(), name.end(), '-', '_');
      return name;
    });

}  // namespace
}  // namespace locksmith::testing
