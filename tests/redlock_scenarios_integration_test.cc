// Every Redlock scenario of the library (scenarios/redlock-*.json), run by
// the locksmith binary on three seeds: each run's verdict is the one the
// file predicts (exit code, the debate line agreeing, and for a predicted
// double holder its kind), and nothing of the run is left behind. One
// test per scenario and seed, so ctest -j runs them side by side.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
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
  };
  return kinds;
}

std::vector<std::string> RedlockScenarios() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(kScenarios)) {
    const std::string name = entry.path().stem().string();
    if (name.rfind("redlock-", 0) == 0 && entry.path().extension() == ".json") {
      names.push_back(name);
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

class RedlockScenarioTest
    : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(RedlockScenarioTest, VerdictIsThePredictedOne) {
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
  ExpectNothingLeft(run);
}

INSTANTIATE_TEST_SUITE_P(
    Library, RedlockScenarioTest,
    ::testing::Combine(::testing::ValuesIn(RedlockScenarios()), ::testing::Values(1, 2, 3)),
    [](const auto& info) {
      std::string name = std::get<0>(info.param) + "_seed" + std::to_string(std::get<1>(info.param));
      std::replace(name.begin(), name.end(), '-', '_');
      return name;
    });

}  // namespace
}  // namespace locksmith::testing
