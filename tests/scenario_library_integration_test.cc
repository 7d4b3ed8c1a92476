// Every scenario of the library (scenarios/*.json, each with the verdict it
// predicts as data: "predicted_verdict", and for an invalid one the kind of
// anomaly, "predicted_anomaly"), run by the locksmith binary on three seeds:
// each run's verdict is the one the file predicts (exit code; the debate
// line agreeing where the file names a debate row; the predicted kind among
// the anomalies; for a client stalled in flight, what that acquire became),
// the fault ledger shows that every scripted step fired and none failed, and
// nothing of the run is left behind. One test per scenario and seed, so
// ctest -j runs them side by side. CTest runs seed 1 (tests/CMakeLists.txt);
// scripts/research-scenario-seeds.sh runs every seed.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

using std::chrono::seconds;

const char kScenarios[] = LOCKSMITH_SOURCE_DIR "/scenarios";

// Every scenario that predicts its verdict.
std::vector<std::string> PredictingScenarios() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(kScenarios)) {
    if (entry.path().extension() != ".json") continue;
    if (ReadJson(entry.path().string()).contains("predicted_verdict")) {
      names.push_back(entry.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Whether an anomaly of `kind` (its "class" or "type") is among the run's.
bool ShowsKind(const nlohmann::json& results, const std::string& kind) {
  for (const auto& a : results["anomalies"]) {
    if (a.value("class", "") == kind || a.value("type", "") == kind) return true;
  }
  return false;
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
// process's acquire: a fail by the validity check when the run is predicted
// valid, an ok when invalid. Row 5's stall is a brief one that steps the
// client's wall clock: the acquire is ok either way, and it is the validity
// the client reckoned that tells the clocks apart -- longer than the lease
// the masters keep when predicted invalid (a wall clock that stepped back),
// shorter when valid (a monotonic one).
void ExpectTheStalledAcquire(const std::string& run, const nlohmann::json& scenario) {
  const std::string predicted = scenario.value("predicted_verdict", "");
  std::vector<nlohmann::json> ops;
  std::istringstream lines(HistoryJsonl(run));
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
  if (scenario.value("scenario", "") == "5") {
    ASSERT_EQ(op["type"], "ok") << op.dump();
    const int64_t lease_ms = scenario["lease_ms"].get<int64_t>();
    if (predicted == "valid") {
      EXPECT_LT(op["value"]["validity_ms"].get<int64_t>(), lease_ms) << op.dump();
    } else {
      EXPECT_GT(op["value"]["validity_ms"].get<int64_t>(), lease_ms) << op.dump();
    }
  } else if (predicted == "valid") {
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
  const std::string predicted = scenario.value("predicted_verdict", "");
  ASSERT_TRUE(predicted == "valid" || predicted == "invalid") << name << " predicts nothing";
  const std::string kind = scenario.value("predicted_anomaly", "");
  ASSERT_EQ(kind.empty(), predicted == "valid") << name << ": an invalid run names its anomaly";

  TempDir dir;
  std::string out;
  const int code = RunLocksmith(
      dir.path(), {"run", "--config", file, "--seed", std::to_string(seed), "--store", "store"},
      seconds(120), &out);
  const std::string run = LatestRun(dir.path() + "/store");
  const nlohmann::json results = ReadJson(run + "/results.json");
  EXPECT_EQ(code, predicted == "invalid" ? 1 : 0) << out;
  if (scenario.contains("prediction")) {
    EXPECT_EQ(results["debate"]["predicted"], scenario["prediction"]) << results["debate"].dump();
    EXPECT_EQ(results["debate"]["matches"], true) << results["debate"].dump();
  }
  if (!kind.empty()) {
    EXPECT_TRUE(ShowsKind(results, kind)) << name << " shows no " << kind << ": "
                                          << results["anomalies"];
  }
  // The ledger: every step the file scripts fired and was applied (a
  // seeded schedule's faults are held to its rule: one observed per family,
  // or the run would be unknown).
  size_t steps = 0;
  for (const auto& row : results["faults"]["rows"]) {
    if (!row.contains("step")) continue;
    ++steps;
    EXPECT_EQ(row["fired"], true) << "step " << row["step"] << " never fired: " << row;
    EXPECT_EQ(row["applied"], true) << "step " << row["step"] << " failed: " << row;
  }
  EXPECT_EQ(steps, scenario.value("steps", nlohmann::json::array()).size()) << results["faults"];
  EXPECT_EQ(results["nemesis"].value("failed", 0), 0) << "a scripted fault failed:\n" << out;
  if (PausesInFlight(scenario)) ExpectTheStalledAcquire(run, scenario);
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
