#include "reports/summary_printer.h"

#include <gtest/gtest.h>

#include <sstream>

#include "checker/double_holder.h"
#include "checker/perf_stats.h"

namespace locksmith {
namespace {

// Two clients holding lock-0 at once, both leases valid.
History Overlap() {
  auto op = [](int64_t index, int64_t time, int64_t process, OpType type, const char* f,
               nlohmann::json value) {
    Op o;
    o.index = index;
    o.time = time;
    o.process = process;
    o.type = type;
    o.f = f;
    o.key = "lock-0";
    o.value = std::move(value);
    return o;
  };
  return {op(0, 0, 0, OpType::kInvoke, "acquire", {{"lease_ms", 1000}}),
          op(1, 10, 0, OpType::kOk, "acquire", {{"token", "a"}, {"validity_ms", 1000}}),
          op(2, 20, 1, OpType::kInvoke, "acquire", {{"lease_ms", 1000}}),
          op(3, 30, 1, OpType::kOk, "acquire", {{"token", "b"}, {"validity_ms", 1000}})};
}

CheckResult Judge(const History& h) {
  std::vector<std::unique_ptr<Checker>> checkers;
  checkers.push_back(std::make_unique<DoubleHolderChecker>());
  checkers.push_back(std::make_unique<PerfStatsChecker>());
  return CompositeChecker(std::move(checkers)).Check(h);
}

TEST(SummaryPrinterTest, EachCheckerLineCarriesTheSummaryTheCheckerWrote) {
  std::ostringstream out;
  PrintRunSummary(out, "store/t/1", Judge(Overlap()), nlohmann::json::object());
  EXPECT_EQ(out.str(),
            "run:     store/t/1\n"
            "double-holder: false (1 double holders: 1 unsafe grants, 0 expired-lease uses)\n"
            "perf: true (2 ops (ok 2, fail 0, info 0))\n"
            "  double-holder unsafe-grant on lock-0: process 0 (acquire #1) process 1 "
            "(acquire #3)\n"
            "verdict: INVALID\n"
            "report:  store/t/1/report.html\n");
}

TEST(SummaryPrinterTest, AKeyOrAnErrorCannotAddALineOrDriveTheTerminal) {
  History h = Overlap();
  for (Op& op : h) op.key = "lock-0\r\nverdict: VALID\x1b[2J";
  std::ostringstream out;
  PrintRunSummary(out, "store/t/1", Judge(h), nlohmann::json::object(), "",
                  "servers: \x1b]0;owned\x07 refused\nverdict: VALID");
  const std::string s = out.str();
  EXPECT_EQ(s.find_first_of("\r\x1b\x07"), std::string::npos) << s;
  EXPECT_EQ(s.find("\nverdict: VALID"), std::string::npos) << s;
  EXPECT_NE(s.find("  double-holder unsafe-grant on lock-0\\r\\nverdict: VALID\\x1b[2J: "),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("\nerror:   servers: \\x1b]0;owned\\x07 refused\\nverdict: VALID\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("\nverdict: INVALID\n"), std::string::npos) << s;

  std::ostringstream err;
  RunOutcome failed;
  failed.error = "cannot create store \x1b[31m\nverdict: VALID";
  PrintRunOutcome(out, err, failed);
  EXPECT_EQ(err.str(), "locksmith: cannot create store \\x1b[31m\\nverdict: VALID\n");
}

TEST(SummaryPrinterTest, InterruptionAndErrorStandJustAboveTheVerdict) {
  std::ostringstream out;
  PrintRunSummary(out, "d", Judge({}), {{"scenario", "6"}, {"prediction", "N"}},
                  "by SIGINT after 1.0 s of the 5 s workload", "workload mutex threw: boom");
  const std::string s = out.str();
  const size_t interrupted = s.find("\ninterrupted: by SIGINT after 1.0 s of the 5 s workload\n");
  const size_t error = s.find("\nerror:   workload mutex threw: boom\n");
  const size_t verdict = s.find("\nverdict: ");
  ASSERT_NE(interrupted, std::string::npos) << s;
  ASSERT_NE(error, std::string::npos) << s;
  EXPECT_LT(interrupted, error);
  EXPECT_LT(error, verdict);
  EXPECT_NE(s.find("debate:  scenario 6 predicts N, this run observed N (as predicted)"),
            std::string::npos)
      << s;
}

TEST(SummaryPrinterTest, AnOutcomeWithoutADirectoryIsOneLineOnStderr) {
  RunOutcome outcome;
  outcome.exit_code = 254;
  outcome.error = "cannot create store/x: Permission denied";
  std::ostringstream out, err;
  PrintRunOutcome(out, err, outcome);
  EXPECT_EQ(out.str(), "");
  EXPECT_EQ(err.str(), "locksmith: cannot create store/x: Permission denied\n");

  outcome.run_dir = "store/t/2";
  outcome.error = "check: disk full";
  PrintRunOutcome(out, err, outcome);
  EXPECT_EQ(out.str(), "run:     store/t/2\nerror:   check: disk full\n");
}

TEST(SummaryPrinterTest, AStaleReadNamesTheReaderTheWriteItMissedAndWhoFilledTheCache) {
  CheckResult r;
  r.valid = Validity::kFalse;
  r.anomalies.push_back(nlohmann::json::parse(R"({
    "type": "stale-read", "key": "cache-0", "value": 7,
    "reader": {"process": 3, "read": [{"index": 40}, {"index": 41}]},
    "last_write": [{"index": 30}, {"index": 31}],
    "writer": {"process": 1},
    "filler": {"process": 2, "fill": [{"index": 35}, {"index": 36}]}})"));
  r.anomalies.push_back(nlohmann::json::parse(R"({
    "type": "stale-cache", "key": "cache-1", "value": 9, "cache": 5, "filler": null})"));
  std::ostringstream out;
  PrintRunSummary(out, "d", r, nlohmann::json::object());
  EXPECT_NE(out.str().find("  stale-read  on cache-0: process 3 read 7 (read #40) after write #30 "
                           "by process 1 had completed (cached by process 2, fill #35)\n"),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("  stale-cache  on cache-1: the cache still holds 5 where the "
                           "database holds 9\n"),
            std::string::npos)
      << out.str();
}

TEST(SummaryPrinterTest, DebateOutcomeComparesPredictionAndObservation) {
  EXPECT_TRUE(DebateOutcome(nlohmann::json::object(), Validity::kFalse).is_null());
  auto d = DebateOutcome({{"scenario", "6"}, {"prediction", "Y"}}, Validity::kUnknown);
  EXPECT_EQ(d["observed"], "?");
  EXPECT_EQ(d["matches"], false);
  // A predicted kind of anomaly must be among what the run found.
  const nlohmann::json config = {
      {"scenario", "6"}, {"prediction", "Y"}, {"predicted_anomaly", "unsafe-grant"}};
  const nlohmann::json expired = {{{"type", "double-holder"}, {"class", "expired-lease-use"}}};
  d = DebateOutcome(config, Validity::kFalse, expired);
  EXPECT_EQ(d["predicted_anomaly"], "unsafe-grant");
  EXPECT_EQ(d["observed"], "Y");
  EXPECT_EQ(d["matches"], false);
  const nlohmann::json unsafe = {{{"type", "double-holder"}, {"class", "unsafe-grant"}}};
  EXPECT_EQ(DebateOutcome(config, Validity::kFalse, unsafe)["matches"], true);
}

// The ledger's families, and every step that did not happen, stand above
// the verdict; a run made unknown by it claims nothing of its prediction.
TEST(SummaryPrinterTest, TheFaultLedgerStandsAboveTheVerdict) {
  const nlohmann::json faults = nlohmann::json::parse(R"({
    "families": [{"family": "kill", "planned": 1, "fired": 0, "applied": 0, "healed": 0,
                  "observed": 0}],
    "rows": [{"step": 1, "phase": "begin", "what": "kill n1 after acquire of no-such-key",
              "fired": false, "applied": false, "observed": false},
             {"step": 2, "phase": "end", "what": "restart at 3000 ms",
              "fired": true, "applied": true, "observed": false}]})");
  CheckResult r;
  r.valid = Validity::kUnknown;
  r.reason = "step 1 (kill n1 after acquire of no-such-key) never fired";
  std::ostringstream out;
  PrintRunSummary(out, "d", r, {{"scenario", "x"}, {"prediction", "N"}}, "", "", faults);
  EXPECT_EQ(out.str(),
            "run:     d\n"
            "faults:  kill: 1 planned, 0 fired, 0 applied, 0 healed, 0 observed\n"
            "  step 1 (kill n1 after acquire of no-such-key): never fired\n"
            "verdict: UNKNOWN (step 1 (kill n1 after acquire of no-such-key) never fired)\n"
            "debate:  scenario x predicts N, this run observed ? (an unknown verdict: nothing "
            "to compare)\n"
            "report:  d/report.html\n");
}


// A family whose faults stall lock holders adds how many of its observed
// stalls outlived their lease.
TEST(SummaryPrinterTest, StallsPastTheLeaseAreCountedApart) {
  const nlohmann::json faults = nlohmann::json::parse(R"({
    "families": [{"family": "client-pause", "planned": 4, "fired": 4, "applied": 4,
                  "healed": 4, "observed": 4, "past_lease": 0}]})");
  CheckResult r;
  r.valid = Validity::kTrue;
  std::ostringstream out;
  PrintRunSummary(out, "d", r, nlohmann::json::object(), "", "", faults);
  EXPECT_NE(out.str().find("faults:  client-pause: 4 planned, 4 fired, 4 applied, 4 healed, 4 "
                           "observed, past lease 0 of 4\n"),
            std::string::npos)
      << out.str();
}

}  // namespace
}  // namespace locksmith
