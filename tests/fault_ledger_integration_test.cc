// The fault ledger end to end on real servers: a run whose scripted fault
// never fires ends unknown, naming the step (tests/scenarios/
// step-never-fires.json, 3 s of workload); and one seed replays a run's
// faults (which nodes, in which order, at which times) and its verdict
// (scenarios/redis-kill-fsync-always.json on five Redlock masters, two kills
// in 4 s, twice on each of three seeds). About 45 s in all.
#include <gtest/gtest.h>

#include <sstream>

#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

using std::chrono::seconds;

TEST(FaultLedgerIntegrationTest, AStepThatNeverFiresEndsUnknownNamingIt) {
  FinishedRun f = RunAndLoad(
      {"--config", LOCKSMITH_SOURCE_DIR "/tests/scenarios/step-never-fires.json", "--seed", "1"},
      seconds(60));
  EXPECT_EQ(f.code, 2) << f.out;
  const std::string line = "step 1 (kill n1 after acquire of no-such-key) never fired";
  EXPECT_NE(f.out.find("verdict: UNKNOWN (" + line + ")"), std::string::npos) << f.out;
  EXPECT_EQ(f.out.find("as predicted"), std::string::npos) << f.out;
  EXPECT_EQ(f.results["valid"], "unknown");
  EXPECT_EQ(f.results["unfulfilled"], line);
  EXPECT_EQ(f.results["debate"]["matches"], false);
  const nlohmann::json& row = f.results["faults"]["rows"][0];
  EXPECT_EQ(row["fired"], false);
  EXPECT_EQ(row["applied"], false);
  EXPECT_TRUE(f.results["anomalies"].empty()) << f.results["anomalies"];
  for (const Op& op : f.history) EXPECT_FALSE(op.is_nemesis()) << "nothing was killed";
}

// The faults of a run as its ledger tells them, for comparing runs: every
// planned fault's family, its plan, what it did (the nodes it hit) and
// what became of it.
std::vector<std::string> Faults(const nlohmann::json& results) {
  std::vector<std::string> faults;
  for (const auto& row : results["faults"]["rows"]) {
    std::ostringstream s;
    s << row["family"] << " " << row["window"] << " " << row["what"] << " at " << row["at_ms"]
      << " ms: " << row.value("done", "-") << " fired " << row["fired"] << " applied "
      << row["applied"] << " healed " << row["healed"] << " observed " << row["observed"];
    faults.push_back(s.str());
  }
  return faults;
}

class ReplayTest : public ::testing::TestWithParam<int> {};

// Two runs of one scenario with one seed: the same faults on the same
// nodes in the same order, each done within a second of the same moment,
// each observed (a restarted master came back with a new pid), and the
// same verdict.
TEST_P(ReplayTest, OneSeedReplaysTheFaultsAndTheVerdict) {
  const std::vector<std::string> flags = {
      "--config",     LOCKSMITH_SOURCE_DIR "/scenarios/redis-kill-fsync-always.json",
      "--backend",    "redlock",
      "--time-limit", "4",
      "--nemesis-interval", "1.5",
      "--seed",       std::to_string(GetParam())};
  FinishedRun first = RunAndLoad(flags, seconds(60));
  FinishedRun second = RunAndLoad(flags, seconds(60));
  const auto faults = Faults(first.results);
  ASSERT_EQ(faults.size(), 2u) << first.results["faults"];
  EXPECT_EQ(Faults(second.results), faults);
  for (const auto& row : first.results["faults"]["rows"]) {
    EXPECT_EQ(row["observed"], true) << row;
  }
  for (size_t i = 0; i < faults.size(); ++i) {
    EXPECT_NEAR(first.results["faults"]["rows"][i]["at_s"].get<double>(),
                second.results["faults"]["rows"][i]["at_s"].get<double>(), 1.0)
        << faults[i];
  }
  EXPECT_EQ(second.results["valid"], first.results["valid"]);
  EXPECT_EQ(second.code, first.code) << first.out << second.out;
}

INSTANTIATE_TEST_SUITE_P(Seeds, ReplayTest, ::testing::Values(1, 2, 3));

}  // namespace
}  // namespace locksmith::testing
