// Client pauses as the fault ledger counts them, end to end on a real
// redis-server: a pause that stalls its holder for its whole length is
// observed whether or not it outlives the lease, and whether it did is a
// count of its own ("past lease K of N"). Pauses within the lease (plain
// client, and the watchdog client) are the safe case: valid, every counted
// pause within its lease; pauses past a short lease make expired-lease
// double holders: invalid, with the pauses past the lease counted. Three
// runs of 5 s of workload each.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

using std::chrono::seconds;

FinishedRun RunPauses(const std::string& interval_s, const std::vector<std::string>& flags) {
  std::vector<std::string> args = {"--backend", "redis", "--nemesis", "client-pause",
                                   "--nemesis-interval", interval_s, "--time-limit", "5",
                                   "--seed", "3"};
  args.insert(args.end(), flags.begin(), flags.end());
  return RunAndLoad(args, seconds(90));
}

// The client-pause family's totals in the run's ledger.
nlohmann::json PauseTotals(const FinishedRun& f) {
  for (const auto& family : f.results["faults"]["families"]) {
    if (family["family"] == "client-pause") return family;
  }
  ADD_FAILURE() << "no client-pause family in " << f.results["faults"];
  return nlohmann::json::object();
}

// The family's console line ends with its past-lease count.
std::string ConsoleLine(const nlohmann::json& totals) {
  const int observed = totals["observed"].get<int>();
  return std::to_string(observed) + " observed, past lease " +
         std::to_string(totals["past_lease"].get<int>()) + " of " + std::to_string(observed) +
         "\n";
}

// Each observed pause's row says whether its stall outlived the lease.
void ExpectEachObservedRowSays(const FinishedRun& f, bool past_lease) {
  int rows = 0;
  for (const auto& row : f.results["faults"]["rows"]) {
    if (row["family"] != "client-pause" || !row["observed"].get<bool>()) continue;
    ++rows;
    EXPECT_EQ(row["past_lease"], past_lease) << row;
  }
  EXPECT_EQ(rows, PauseTotals(f)["observed"].get<int>());
}

TEST(ClientPauseIntegrationTest, PausesWithinTheLeaseAreObservedAndTheRunIsValid) {
  FinishedRun f = RunPauses("1.5", {"--lease", "3000", "--client-pause-ms", "500"});
  EXPECT_EQ(f.code, 0) << f.out;
  EXPECT_NE(f.out.find("verdict: VALID"), std::string::npos) << f.out;
  const nlohmann::json totals = PauseTotals(f);
  EXPECT_GE(totals["observed"].get<int>(), 1) << totals;
  EXPECT_EQ(totals["past_lease"], 0) << totals;
  EXPECT_NE(f.out.find(ConsoleLine(totals)), std::string::npos) << f.out;
  ExpectEachObservedRowSays(f, false);
  EXPECT_GT(Count(f.history, "pause", OpType::kOk), 0) << "no holder was paused";
}

// The watchdog's holder paused for 2 s of a 30 s lease keeps its lock: the
// safe case, shown.
TEST(ClientPauseIntegrationTest, TheWatchdogKeepsAPausedHoldersLock) {
  FinishedRun f = RunPauses(
      "2.5", {"--client", "redis-watchdog", "--lease", "30000", "--client-pause-ms", "2000"});
  EXPECT_EQ(f.code, 0) << f.out;
  EXPECT_NE(f.out.find("verdict: VALID"), std::string::npos) << f.out;
  const nlohmann::json totals = PauseTotals(f);
  EXPECT_GE(totals["observed"].get<int>(), 1) << totals;
  EXPECT_EQ(totals["past_lease"], 0) << totals;
  EXPECT_NE(f.out.find(ConsoleLine(totals)), std::string::npos) << f.out;
  ExpectEachObservedRowSays(f, false);
  EXPECT_EQ(Count(f.history, "lock-lost", OpType::kOk), 0);
}

// Pauses three times a 400 ms lease on one key: another worker takes the
// lock while the holder stalls, and the holder goes on as if it still had
// it. Invalid, each observed pause counted past the lease, and the story of
// a double holder names the pause that outlived its lease.
TEST(ClientPauseIntegrationTest, PausesPastTheLeaseAreCountedAndTheRunIsInvalid) {
  FinishedRun f = RunPauses("1.5", {"--lease", "400", "--client-pause-ms", "1200", "--keys", "1"});
  ASSERT_EQ(f.code, 1) << f.out;
  EXPECT_GE(Count(AnomalyClasses(f.results), "expired-lease-use"), 1) << f.results["anomalies"];
  const nlohmann::json totals = PauseTotals(f);
  EXPECT_GE(totals["observed"].get<int>(), 1) << totals;
  EXPECT_EQ(totals["past_lease"], totals["observed"]) << totals;
  EXPECT_NE(f.out.find(ConsoleLine(totals)), std::string::npos) << f.out;
  ExpectEachObservedRowSays(f, true);
  bool told = false;
  for (const auto& w : f.results["fault_descriptions"]["windows"]) {
    if (w["family"] != "client-pause" || !w.value("past_lease", false)) continue;
    told = true;
    EXPECT_NE(w["text"].get<std::string>().find(", past its lease"), std::string::npos) << w;
  }
  EXPECT_TRUE(told) << f.results["fault_descriptions"];
}

}  // namespace
}  // namespace locksmith::testing
