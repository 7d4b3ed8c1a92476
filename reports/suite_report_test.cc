// SuiteReport: rows from results.json, the exit-code order, the Wilson
// interval, and the three files on hand-made rows.
#include "reports/suite_record_reader.h"
#include "reports/suite_report.h"

#include <gtest/gtest.h>

#include <functional>

namespace locksmith {
namespace {

nlohmann::json OpRefAt(int64_t ns) {
  return {{"index", ns / 1000}, {"time", ns}, {"f", "acquire"}, {"process", 1}};
}

TEST(SuiteReportTest, WilsonIntervalMatchesTheTextbookValues) {
  const Interval none = WilsonInterval(0, 10);
  EXPECT_DOUBLE_EQ(none.low, 0);
  EXPECT_NEAR(none.high, 0.2775, 1e-4);
  const Interval half = WilsonInterval(5, 10);
  EXPECT_NEAR(half.low, 0.2366, 1e-4);
  EXPECT_NEAR(half.high, 0.7634, 1e-4);
  const Interval all = WilsonInterval(10, 10);
  EXPECT_NEAR(all.low, 0.7225, 1e-4);
  EXPECT_DOUBLE_EQ(all.high, 1);
  const Interval empty = WilsonInterval(0, 0);
  EXPECT_EQ(empty.low, 0);
  EXPECT_EQ(empty.high, 0);
}

TEST(SuiteReportTest, ACrashBeatsInvalidBeatsUnknownBeatsValid) {
  EXPECT_EQ(WorstExitCode({}), 0);
  EXPECT_EQ(WorstExitCode({0, 0}), 0);
  EXPECT_EQ(WorstExitCode({0, 2}), 2);
  EXPECT_EQ(WorstExitCode({2, 1, 0}), 1);
  EXPECT_EQ(WorstExitCode({1, 255, 2}), 255);
  EXPECT_EQ(WorstExitCode({254, 1}), 254);
}

TEST(SuiteReportTest, ARowTakesVerdictAnomaliesFirstViolationAndFigures) {
  const nlohmann::json results = {
      {"valid", false},
      {"anomalies",
       {{{"type", "unsafe-grant"}, {"ops", {OpRefAt(4'000'000'000), OpRefAt(5'000'000'000)}}},
        {{"type", "unsafe-grant"}, {"first", {{"ops", {OpRefAt(2'500'000'000)}}}}},
        {{"type", "expired-lease-use"}, {"ops", {OpRefAt(9'000'000'000)}}}}},
      {"stats",
       {{"availability",
         {{"stats",
           {{"inside_faults",
             {{"attempts", 10}, {"availability", 0.25}, {"answered", 0.9}, {"in_doubt", 1},
              {"unanswered_share", 0.3}}},
            {"outside_faults", {{"attempts", 0}, {"availability", 0}}}}}}},
        {"perf",
         {{"stats",
           {{"ops_per_s", 1200.5},
            {"duration_s", 10.0},
            {"by_f", {{"acquire", {{"ok", 25}, {"fail", 3}}}}},
            {"latency", {{"acquire", {{"ok", {{"p50_ms", 0.4}, {"p99_ms", 3.5}}}}}}}}}}}}}};
  const nlohmann::json config = {
      {"backend", "redis"}, {"client", "redis-watchdog"}, {"workload", "mutex"},
      {"nemesis", {"kill", "pause"}}};
  const SuiteRun row = SuiteRunFrom(results, config);
  EXPECT_EQ(row.verdict, "invalid");
  EXPECT_EQ(row.anomalies.at("unsafe-grant"), 2);
  EXPECT_EQ(row.anomalies.at("expired-lease-use"), 1);
  // The earliest anomaly became certain at its latest op: 2.5 s.
  ASSERT_TRUE(row.first_violation_s.has_value());
  EXPECT_DOUBLE_EQ(*row.first_violation_s, 2.5);
  EXPECT_DOUBLE_EQ(*row.availability_inside, 0.25);
  EXPECT_FALSE(row.availability_outside.has_value());  // no attempt outside faults
  EXPECT_DOUBLE_EQ(*row.answered_inside, 0.9);
  EXPECT_FALSE(row.answered_outside.has_value());
  EXPECT_DOUBLE_EQ(*row.unanswered_inside, 0.3);
  EXPECT_FALSE(row.unanswered_outside.has_value());
  EXPECT_DOUBLE_EQ(*row.in_doubt, 0.1);       // 1 of the 10 acquires
  EXPECT_DOUBLE_EQ(*row.grants_per_s, 2.5);   // 25 granted in 10 s
  EXPECT_DOUBLE_EQ(*row.acquire_p50_ms, 0.4);
  EXPECT_DOUBLE_EQ(*row.acquire_p99_ms, 3.5);
  EXPECT_DOUBLE_EQ(*row.ops_per_s, 1200.5);
  EXPECT_EQ(row.lock, "redis/redis-watchdog");
  EXPECT_EQ(row.schedule, "mutex, kill+pause");

  const SuiteRun failed = SuiteRunFrom(nullptr, nullptr);
  EXPECT_EQ(failed.verdict, "failed");
  EXPECT_TRUE(failed.anomalies.empty());
  EXPECT_EQ(SuiteRunFrom({{"valid", "unknown"}}, nullptr).verdict, "unknown");
  EXPECT_EQ(SuiteRunFrom({{"valid", true}}, {{"workload", "mutex"}}).schedule, "mutex, no faults");
}

SuiteRun Row(const std::string& cell, const std::string& verdict, int exit_code,
             std::optional<double> first = std::nullopt) {
  SuiteRun r;
  r.cell = cell;
  r.verdict = verdict;
  r.exit_code = exit_code;
  r.first_violation_s = first;
  r.lock = cell.substr(0, cell.find('.'));
  r.schedule = "mutex, kill";
  r.dir = cell + "/run";
  if (verdict == "invalid") r.anomalies["unsafe-grant"] = 1;
  return r;
}

TEST(SuiteReportTest, AGroupCountsViolationsAmongJudgedRunsOnly) {
  std::vector<SuiteRun> runs = {Row("a", "invalid", 1, 3.0), Row("a", "valid", 0),
                                Row("a", "invalid", 1, 1.0), Row("a", "unknown", 2),
                                Row("a", "invalid", 1, 2.0)};
  runs[0].answered_outside = 1.0;
  runs[1].answered_outside = 0.9;
  std::vector<const SuiteRun*> of;
  for (const auto& r : runs) of.push_back(&r);
  const RunGroup g = Summarize(of);
  EXPECT_DOUBLE_EQ(*g.mean_answered_outside, 0.95);
  EXPECT_FALSE(g.mean_answered_inside.has_value());
  EXPECT_EQ(g.runs, 5);
  EXPECT_EQ(g.judged, 4);
  EXPECT_EQ(g.violations, 3);
  EXPECT_DOUBLE_EQ(*g.median_first_violation_s, 2.0);
  EXPECT_LE(g.rate.low, 0.75);
  EXPECT_GE(g.rate.high, 0.75);
}

SuiteRecord TwoLocks() {
  SuiteRecord s;
  s.name = "nightly<&>";
  s.seed = 42;
  s.runs = {Row("redis.kill", "invalid", 1, 1.5), Row("redis.kill", "valid", 0),
            Row("zk.kill", "valid", 0), Row("zk.kill", "failed", 255)};
  s.runs[3].error = "servers: <refused>";
  s.cells = {"redis.kill", "zk.kill"};
  s.planned_runs = 4;
  return s;
}

TEST(SuiteReportTest, JunitHasOneCaseARunWithFailuresAndErrorsEscaped) {
  const std::string xml = RenderSuiteJunit(TwoLocks());
  size_t cases = 0;
  for (size_t at = xml.find("<testcase "); at != std::string::npos;
       at = xml.find("<testcase ", at + 1)) {
    ++cases;
  }
  EXPECT_EQ(cases, 4u);
  EXPECT_NE(xml.find("tests=\"4\" failures=\"1\" errors=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<failure message=\"1 unsafe-grant\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("servers: &lt;refused&gt;"), std::string::npos) << xml;
  EXPECT_EQ(xml.find("nightly<&>"), std::string::npos) << xml;
}

TEST(SuiteReportTest, TheSummaryAndIndexCompareLocksAndLinkEveryRun) {
  SuiteRecord suite = TwoLocks();
  suite.runs[2].answered_inside = 0.5;
  for (int i : {2, 3}) {
    suite.runs[i].grants_per_s = 10.0 + i;
    suite.runs[i].acquire_p50_ms = 300;
    suite.runs[i].acquire_p99_ms = 1900;
    suite.runs[i].in_doubt = 0.02;
    suite.runs[i].unanswered_inside = 0.4;
    suite.runs[i].unanswered_outside = 0.0;
  }
  const nlohmann::json summary = SuiteSummaryJson(suite);
  EXPECT_DOUBLE_EQ(summary["runs"][3]["grants_per_s"].get<double>(), 13.0);
  EXPECT_DOUBLE_EQ(summary["comparison"][1]["mean_grants_per_s"].get<double>(), 12.5);
  EXPECT_DOUBLE_EQ(summary["comparison"][1]["median_acquire_p99_ms"].get<double>(), 1900);
  EXPECT_DOUBLE_EQ(summary["runs"][2]["answered_inside"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(summary["cells"]["zk.kill"]["mean_answered_inside"].get<double>(), 0.5);
  // The store's index and `report` rebuild a suite from its summary.json.
  Result<SuiteRecord> back = SuiteRecordFromJson(summary);
  ASSERT_TRUE(back.ok()) << back.error();
  ASSERT_EQ(back->runs.size(), 4u);
  EXPECT_DOUBLE_EQ(*back->runs[2].answered_inside, 0.5);
  EXPECT_DOUBLE_EQ(*back->runs[2].unanswered_inside, 0.4);
  EXPECT_DOUBLE_EQ(*back->runs[2].in_doubt, 0.02);
  EXPECT_EQ(back->runs[0].verdict, "invalid");
  EXPECT_EQ(summary["exit_code"], 255);
  EXPECT_EQ(summary["runs"].size(), 4u);
  EXPECT_EQ(summary["cells"]["redis.kill"]["violations"], 1);
  EXPECT_EQ(summary["cells"]["redis.kill"]["judged"], 2);
  EXPECT_EQ(summary["cells"]["zk.kill"]["judged"], 1);
  ASSERT_EQ(summary["comparison"].size(), 2u);
  EXPECT_EQ(summary["comparison"][0]["lock"], "redis");
  EXPECT_EQ(summary["comparison"][1]["lock"], "zk");

  const std::string html = RenderSuiteIndex(suite);
  for (const auto& r : suite.runs) {
    EXPECT_NE(html.find("href=\"" + r.dir + "/report.html\""), std::string::npos) << r.dir;
  }
  EXPECT_NE(html.find("1 of 2 invalid"), std::string::npos) << html;
  // One row per workload and lock: grants/s, p50 / p99, in doubt, failed
  // with no answer in / out of faults, violations; a legend under it.
  EXPECT_NE(html.find("<td>zk</td><td>12.5</td><td>300.0 / 1900.0 ms</td><td>2.0%</td>"
                      "<td>40.0% / 0.0%</td><td class=\"unknown\">0 of 1 invalid"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<td>redis</td><td>–</td><td>– / –</td><td>–</td><td>– / –</td>"
                      "<td class=\"invalid\">1 of 2 invalid"),
            std::string::npos)
      << html;
  for (const char* term : {"grants/s", "time to acquire", "in doubt", "failed, no answer",
                           "violations"}) {
    EXPECT_NE(html.find(std::string("<dt>") + term + "</dt>"), std::string::npos) << term;
  }
  EXPECT_EQ(html.find("<refused>"), std::string::npos);
  EXPECT_EQ(html.find("nightly<&>"), std::string::npos);
}

// A run's row shows its fault ledger in short, and a run made unknown by it
// says why; the summary keeps both.
TEST(SuiteReportTest, ARowShowsTheFaultLedgerAndWhatDidNotHappen) {
  const nlohmann::json results = nlohmann::json::parse(R"({
    "valid": "unknown", "reason": "nemesis pause: none of its 2 faults was observed",
    "faults": {"families": [{"family": "kill", "planned": 3, "observed": 3},
                            {"family": "pause", "planned": 2, "observed": 0}],
               "unfulfilled": "nemesis pause: none of its 2 faults was observed"}})");
  SuiteRun row = SuiteRunFrom(results, {{"backend", "redis"}, {"workload", "mutex"}});
  EXPECT_EQ(row.faults, "kill 3/3, pause 0/2");
  EXPECT_EQ(row.error, "nemesis pause: none of its 2 faults was observed");
  SuiteRecord suite;
  suite.name = "s";
  suite.runs = {row};
  EXPECT_EQ(SuiteRecordFromJson(SuiteSummaryJson(suite))->runs[0].faults, "kill 3/3, pause 0/2");
  EXPECT_NE(RenderSuiteIndex(suite).find("<td>kill 3/3, pause 0/2</td>"), std::string::npos);
  // No ledger: no figure; a judged run's error is not the ledger's.
  EXPECT_EQ(SuiteRunFrom({{"valid", true}}, nullptr).faults, "");
}

TEST(SuiteReportTest, ARunDirectoryIsALinkThatStaysAPath) {
  SuiteRecord suite = TwoLocks();
  suite.runs[0].dir = "javascript:alert(document.cookie)//";
  suite.runs[1].dir = "cell #1/2026 \"x\"";
  const std::string html = RenderSuiteIndex(suite);
  EXPECT_EQ(html.find("href=\"javascript:"), std::string::npos) << html;
  EXPECT_NE(html.find("href=\"javascript%3Aalert%28document.cookie%29///report.html\""),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("href=\"cell%20%231/2026%20%22x%22/report.html\""), std::string::npos)
      << html;
}

TEST(SuiteReportTest, ASummaryIsReadWithEveryTypeChecked) {
  const nlohmann::json good = SuiteSummaryJson(TwoLocks());
  ASSERT_TRUE(SuiteRecordFromJson(good).ok());
  auto error_of = [&](const std::function<void(nlohmann::json&)>& damage) {
    nlohmann::json j = good;
    damage(j);
    auto record = SuiteRecordFromJson(j);
    return record.ok() ? std::string("accepted") : record.error();
  };
  EXPECT_EQ(error_of([](auto& j) { j["planned_runs"] = "many"; }),
            "\"planned_runs\" must be a whole number from 0 to 2147483647");
  EXPECT_EQ(error_of([](auto& j) { j["seed"] = -1; }),
            "\"seed\" must be a whole number from 0 to 18446744073709551615");
  EXPECT_EQ(error_of([](auto& j) { j["runs"][1]["repeat"] = 1e300; }),
            "runs[1]: \"repeat\" must be a whole number from 0 to 2147483647");
  EXPECT_EQ(error_of([](auto& j) { j["runs"][2]["exit_code"] = "1"; }),
            "runs[2]: \"exit_code\" must be a whole number from 0 to 255");
  EXPECT_EQ(error_of([](auto& j) { j["runs"][0]["duration_s"] = "long"; }),
            "runs[0]: \"duration_s\" must be a number");
  EXPECT_EQ(error_of([](auto& j) { j["runs"][0]["anomalies"] = {{"double-holder", "two"}}; }),
            "runs[0]: \"anomalies\" must count each type with a whole number");
  EXPECT_EQ(error_of([](auto& j) { j["runs"][3] = 5; }), "runs[3] is not an object");
  EXPECT_EQ(error_of([](auto& j) { j["cells"] = "a,b"; }), "\"cells\" must be an object");
  EXPECT_EQ(error_of([](auto& j) { j.erase("suite"); }),
            "not a suite summary (an object with \"suite\" and \"runs\")");
  // A run directory is a relative path inside the suite's directory.
  for (const char* outside : {"../../../etc", "/tmp/x", "a/../..", "."}) {
    EXPECT_EQ(error_of([&](auto& j) { j["runs"][1]["dir"] = outside; }),
              "runs[1]: \"dir\" must be a relative path inside the suite's directory, not \"" +
                  std::string(outside) + "\"")
        << outside;
  }
}

TEST(SuiteReportTest, TheJunitVerdictAttributeIsEscaped) {
  SuiteRecord suite = TwoLocks();
  suite.runs[3].verdict = "failed\" injected=\"<&>";
  const std::string xml = RenderSuiteJunit(suite);
  EXPECT_EQ(xml.find("injected=\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("type=\"failed&quot; injected=&quot;&lt;&amp;&gt;\""), std::string::npos)
      << xml;
}

}  // namespace
}  // namespace locksmith
