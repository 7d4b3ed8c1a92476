// The debate matrix without servers: scenarios fall in their column (a
// client variant beside its column, a fenced one in FT), a box's runs sum
// to k of K with the suite's Wilson interval, agreement follows the
// prediction, a cell that cannot run says so in the page and the tables,
// debate.json reads back as written, and the doc's markers are respected.
#include "reports/debate_matrix.h"

#include <gtest/gtest.h>

#include "reports/debate_doc.h"
#include "reports/debate_page.h"

namespace locksmith {
namespace {

const char* const kShapeJson = R"({
  "rows": [{"id": "1", "what": "the holder pauses"}, {"id": "4", "what": "a clock jumps"}],
  "columns": [
    {"id": "SR", "what": "single Redis", "backends": ["redis"]},
    {"id": "ET", "what": "etcd", "backends": ["etcd"]},
    {"id": "DB", "what": "a database lock", "backends": ["postgres"], "clients": ["pg-advisory"]},
    {"id": "LT", "what": "a lock table", "backends": ["postgres"], "clients": ["pg-lock-table"]},
    {"id": "FT", "what": "fenced", "fencing": "on"}],
  "cannot_run": [{"row": "4", "column": "ET", "predicted": "valid", "reason": "Go reads the vDSO"}]
})";

DebateShape Shape() {
  auto shape = DebateShapeFromJson(nlohmann::json::parse(kShapeJson));
  EXPECT_TRUE(shape.ok()) << shape.error();
  return *shape;
}

DebateScenarioFacts Facts(const std::string& name, const std::string& backend,
                          const std::string& client = "redis", bool default_client = true) {
  DebateScenarioFacts f;
  f.name = name;
  f.row = "1";
  f.backend = backend;
  f.client = client;
  f.default_client = default_client;
  f.predicted_verdict = "invalid";
  f.predicted_anomaly = "unsafe-grant";
  f.run_length_s = 10;
  return f;
}

DebateRunFacts RunOf(int repeat, const std::string& verdict, std::set<std::string> kinds = {},
                   std::optional<double> first = std::nullopt) {
  DebateRunFacts r;
  r.run.repeat = repeat;
  r.run.seed = 100 + repeat;
  r.run.verdict = verdict;
  r.run.first_violation_s = first;
  r.anomaly_kinds = std::move(kinds);
  r.report = "run-" + std::to_string(repeat) + "/report.html";
  r.replay = "locksmith run --scenario s --seed " + std::to_string(100 + repeat);
  return r;
}

TEST(DebateMatrixTest, EachScenarioFallsInItsColumn) {
  const DebateShape shape = Shape();
  EXPECT_EQ(DebateColumnOf(shape, Facts("a", "redis")), "SR");
  EXPECT_EQ(DebateColumnOf(shape, Facts("a", "redis", "redis-watchdog", false)),
            "SR redis-watchdog");
  EXPECT_EQ(DebateColumnOf(shape, Facts("a", "postgres", "pg-advisory")), "DB");
  EXPECT_EQ(DebateColumnOf(shape, Facts("a", "postgres", "pg-lock-table", false)), "LT");
  DebateScenarioFacts fenced = Facts("a", "etcd", "etcd");
  fenced.fenced = true;
  EXPECT_EQ(DebateColumnOf(shape, fenced), "FT");
  EXPECT_EQ(DebateColumnOf(shape, Facts("a", "zookeeper", "zk-fair")), "?");
}

TEST(DebateMatrixTest, ABoxSumsItsRunsWithTheSuitesWilsonInterval) {
  DebateScenarioRuns s{Facts("redis-kill", "redis"), 4, {}};
  s.runs = {RunOf(0, "invalid", {"unsafe-grant", "double-holder"}, 2.0),
            RunOf(1, "valid"), RunOf(2, "invalid", {"expired-lease-use"}, 4.0), RunOf(3, "unknown")};
  const DebateMatrix m = BuildDebateMatrix(Shape(), {s});
  ASSERT_EQ(m.entries.size(), 1u);
  const DebateEntry& e = m.entries[0];
  EXPECT_EQ(e.column, "SR");
  EXPECT_EQ(e.planned, 4);
  EXPECT_EQ(e.runs, 4);
  EXPECT_EQ(e.judged, 3);
  EXPECT_EQ(e.invalid, 2);
  EXPECT_EQ(e.invalid_predicted_kind, 1);
  const Interval wilson = WilsonInterval(2, 3);
  EXPECT_DOUBLE_EQ(e.wilson.low, wilson.low);
  EXPECT_DOUBLE_EQ(e.wilson.high, wilson.high);
  EXPECT_EQ(e.median_first_violation_s, 3.0);
  EXPECT_EQ(e.agreement, "agrees");
  ASSERT_EQ(e.invalid_runs.size(), 2u);
  EXPECT_EQ(e.invalid_runs[0].seed, 100u);
  EXPECT_TRUE(e.invalid_runs[0].predicted_kind);
  EXPECT_FALSE(e.invalid_runs[1].predicted_kind);
  EXPECT_EQ(DebateObservedText(e), "2 of 3 invalid [21–94%]; 1 not judged");
}

TEST(DebateMatrixTest, AgreementFollowsThePrediction) {
  // A Y is shown by one run with the predicted kind.
  EXPECT_EQ(DebateAgreement("invalid", 20, 20, 1, 1), "agrees");
  EXPECT_EQ(DebateAgreement("invalid", 3, 3, 0, 0), "disagrees");
  // Invalid, but not as predicted: the claim is not shown.
  EXPECT_EQ(DebateAgreement("invalid", 3, 3, 3, 0), "disagrees");
  EXPECT_EQ(DebateAgreement("invalid", 3, 2, 0, 0), "undecided");
  // An N holds while every run is judged valid; one invalid run refutes it.
  EXPECT_EQ(DebateAgreement("valid", 3, 3, 0, 0), "agrees");
  EXPECT_EQ(DebateAgreement("valid", 3, 3, 1, 1), "disagrees");
  EXPECT_EQ(DebateAgreement("valid", 3, 2, 0, 0), "undecided");
  EXPECT_EQ(DebateAgreement("valid", 0, 0, 0, 0), "undecided");
  EXPECT_EQ(DebateAgreement("", 3, 3, 3, 3), "no prediction");
}

TEST(DebateMatrixTest, ACellThatCannotRunSaysSoUnlessAScenarioFillsIt) {
  DebateScenarioRuns s{Facts("redis-pause", "redis"), 1, {RunOf(0, "invalid", {"unsafe-grant"})}};
  DebateMatrix m = BuildDebateMatrix(Shape(), {s});
  const std::string page = RenderDebatePage(m);
  EXPECT_NE(page.find("class=\"cannot-run\">predicted N; cannot run: Go reads the vDSO"),
            std::string::npos);
  const std::string tables = DebateDocTables(m);
  EXPECT_NE(tables.find("| 4 |  | N (cannot run) |  |  |  |\n"), std::string::npos) << tables;
  EXPECT_NE(tables.find("N (cannot run)"), std::string::npos) << tables;
  EXPECT_NE(tables.find("- row 4 on ET: predicted N; Go reads the vDSO"), std::string::npos);

  DebateScenarioFacts clock = Facts("etcd-clock", "etcd", "etcd");
  clock.row = "4";
  m = BuildDebateMatrix(Shape(), {s, {clock, 1, {RunOf(0, "valid")}}});
  EXPECT_EQ(RenderDebatePage(m).find("class=\"cannot-run\""), std::string::npos);
}

TEST(DebateMatrixTest, ThePageLinksEachInvalidRunWithItsSeedAndReplay) {
  DebateScenarioRuns s{Facts("redis-pause", "redis"), 2, {RunOf(0, "invalid", {"unsafe-grant"}, 1.5),
                                                         RunOf(1, "valid")}};
  const std::string page = RenderDebatePage(BuildDebateMatrix(Shape(), {s}));
  EXPECT_NE(page.find("<a href=\"run-0/report.html\">run #0</a>, seed 100"), std::string::npos);
  EXPECT_NE(page.find("<code>locksmith run --scenario s --seed 100</code>"), std::string::npos);
  EXPECT_EQ(page.find("run-1/report.html"), std::string::npos);
  EXPECT_NE(page.find("1 agree, 0 disagree, 0 undecided"), std::string::npos);
}

TEST(DebateMatrixTest, DebateJsonReadsBackAsWritten) {
  DebateScenarioRuns s{Facts("redis-pause", "redis"), 2, {RunOf(0, "invalid", {"unsafe-grant"}, 1.5),
                                                         RunOf(1, "unknown")}};
  DebateScenarioFacts variant = Facts("watchdog", "redis", "redis-watchdog", false);
  variant.row = "extra";
  variant.predicted_verdict = "valid";
  variant.predicted_anomaly = "";
  DebateMatrix m = BuildDebateMatrix(Shape(), {s, {variant, 2, {RunOf(0, "unknown")}}});
  m.seed = 7;
  m.time_scale = 0.5;
  m.command = "locksmith debate --repeats 2";
  EXPECT_EQ(m.rows, (std::vector<std::string>{"1", "4", "extra"}));
  EXPECT_EQ(m.columns, (std::vector<std::string>{"SR", "SR redis-watchdog", "ET", "DB", "LT", "FT"}));
  const nlohmann::json j = DebateMatrixJson(m);
  auto back = DebateMatrixFromJson(nlohmann::json::parse(j.dump()));
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(DebateMatrixJson(*back), j);
  EXPECT_EQ(DebateDocTables(*back), DebateDocTables(m));
  EXPECT_EQ(back->entries[1].agreement, "undecided");

  nlohmann::json broken = j;
  broken["entries"][0]["invalid"] = 5;
  EXPECT_FALSE(DebateMatrixFromJson(broken).ok());
  EXPECT_FALSE(DebateMatrixFromJson(nlohmann::json::object()).ok());
}

TEST(DebateMatrixTest, TheShapeRefusesWhatItCannotPlace) {
  nlohmann::json j = nlohmann::json::parse(kShapeJson);
  j["cannot_run"][0]["column"] = "XX";
  EXPECT_NE(DebateShapeFromJson(j).error().find("no row \"4\" or no column \"XX\""),
            std::string::npos);
  j = nlohmann::json::parse(kShapeJson);
  j["cannot_run"][0]["reason"] = "";
  EXPECT_FALSE(DebateShapeFromJson(j).ok());
  j = nlohmann::json::parse(kShapeJson);
  j["columns"][1]["id"] = "SR";
  EXPECT_NE(DebateShapeFromJson(j).error().find("two columns are named SR"), std::string::npos);
  j = nlohmann::json::parse(kShapeJson);
  j["columns"][0]["backends"] = "redis";
  EXPECT_FALSE(DebateShapeFromJson(j).ok());
}

TEST(DebateMatrixTest, TheDocIsPatchedOnlyBetweenItsMarkers) {
  DebateScenarioRuns s{Facts("redis-pause", "redis"), 1, {RunOf(0, "invalid", {"unsafe-grant"})}};
  const DebateMatrix m = BuildDebateMatrix(Shape(), {s});
  const std::string doc = std::string("# Title\n\nhand-written\n") + kDebateDocBegin +
                          "\nold tables\n" + kDebateDocEnd + "\nafter\n";
  auto patched = PatchDebateDoc(doc, m);
  ASSERT_TRUE(patched.ok()) << patched.error();
  EXPECT_EQ(patched->rfind("# Title\n\nhand-written\n", 0), 0u);
  EXPECT_NE(patched->find(std::string(kDebateDocEnd) + "\nafter\n"), std::string::npos);
  EXPECT_EQ(patched->find("old tables"), std::string::npos);
  EXPECT_EQ(*DebateDocBlock(*patched), DebateDocTables(m));
  EXPECT_FALSE(PatchDebateDoc("no markers", m).ok());
  EXPECT_FALSE(PatchDebateDoc(std::string(kDebateDocEnd) + "\n" + kDebateDocBegin + "\n", m).ok());
}

}  // namespace
}  // namespace locksmith
