// The reports in a real browser (headless Chromium): a failing run's report
// and a suite's index load without a script error, the report shows the
// double holder, the index links every run's report and renders its
// comparison with a value in every column, and screenshots of the failing
// report and of the index are kept as artifacts (artifacts/ beside the test).
// store/index.html loads and links every run and suite. Runs go through the
// real lifecycle on fakes: no servers are needed.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "base/testing/temp_dir.h"
#include "harness/report_command.h"
#include "harness/run.h"
#include "harness/signal_watcher.h"
#include "harness/suite_runner.h"
#include "harness/testing/fake_run_modules.h"
#include "nemesis/fault_descriptions.h"
#include "reports/html_report.h"

namespace locksmith {
namespace {

namespace fs = std::filesystem;

struct Page {
  std::string dom;
  std::string log;  // Chromium's stderr, console messages included
  int status = -1;
};

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Loads `file` in headless Chromium: the DOM after its scripts ran, the
// console, and optionally a screenshot.
Page Load(const std::string& file, const std::string& work, const std::string& screenshot = "") {
  const std::string dom = work + "/dom.html", log = work + "/chromium.log";
  std::string command = "timeout 120 chromium --headless=new --no-sandbox --disable-gpu "
                        "--no-first-run --user-data-dir='" + work + "/profile' "
                        "--enable-logging=stderr --v=0 ";
  command += screenshot.empty() ? "--dump-dom "
                                : "--window-size=1280,1600 --screenshot='" + screenshot + "' ";
  command += "'file://" + file + "' >'" + dom + "' 2>'" + log + "'";
  Page page;
  const int raw = std::system(command.c_str());
  page.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  page.dom = Slurp(dom);
  page.log = Slurp(log);
  return page;
}

// Console errors and uncaught exceptions Chromium logged for the page.
std::vector<std::string> ScriptErrors(const std::string& log) {
  std::vector<std::string> errors;
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("CONSOLE") != std::string::npos &&
        (line.find("Uncaught") != std::string::npos || line.find("Error") != std::string::npos)) {
      errors.push_back(line);
    }
  }
  return errors;
}

TEST(BrowserIntegrationTest, AFailingRunsReportAndTheSuiteIndexLoadWithoutScriptErrors) {
  testing::TempDir store, work;
  auto suite = ParseSuite(nlohmann::json::parse(R"({"seed": 3,
      "base": {"time_limit_s": 0.5, "concurrency": 3},
      "cells": [{"name": "fine"}, {"name": "broken"}]})"),
                          "browser", SuiteOverrides{std::nullopt, store.path(), std::nullopt});
  ASSERT_TRUE(suite.ok()) << suite.error();
  SignalWatcher signals;
  std::ostringstream out;
  const SuiteOutcome outcome = ExecuteSuite(*suite, signals, testing::FakeRunModules(), out);
  ASSERT_TRUE(outcome.error.empty()) << outcome.error;
  ASSERT_EQ(outcome.record.runs.size(), 2u);
  ASSERT_EQ(outcome.record.runs[1].verdict, "invalid");

  // The failing run's report: its anomalies rendered by the page's script.
  const std::string report = outcome.dir + "/" + outcome.record.runs[1].dir + "/report.html";
  const Page failing = Load(report, work.path());
  ASSERT_EQ(failing.status, 0) << failing.log;
  EXPECT_TRUE(ScriptErrors(failing.log).empty()) << ScriptErrors(failing.log).front();
  EXPECT_NE(failing.dom.find("class=\"anomaly"), std::string::npos);
  EXPECT_NE(failing.dom.find("double-holder"), std::string::npos);
  EXPECT_NE(failing.dom.find("INVALID"), std::string::npos);

  // The index: every run linked, every link a file.
  const Page index = Load(outcome.dir + "/index.html", work.path());
  ASSERT_EQ(index.status, 0) << index.log;
  EXPECT_TRUE(ScriptErrors(index.log).empty()) << ScriptErrors(index.log).front();
  const std::regex link("href=\"([^\"]+/report\\.html)\"");
  int links = 0;
  for (std::sregex_iterator it(index.dom.begin(), index.dom.end(), link), end; it != end; ++it) {
    ++links;
    EXPECT_TRUE(fs::exists(outcome.dir + "/" + (*it)[1].str())) << (*it)[1].str();
  }
  EXPECT_EQ(links, 2);

  // The comparison: a row per lock and faults, each column rendered with a
  // value, and the legend under it; a screenshot of the index is kept.
  const std::regex row("<tr><td>mutex, no faults</td><td>([^<]*)</td><td>([0-9.]+)</td>"
                       "<td>([0-9.]+) / ([0-9.]+) ms</td><td>([0-9.]+)%</td>"
                       "<td>(–|[0-9.]+%) / ([0-9.]+)%</td><td class=\"[a-z]+\">"
                       "([0-9]+ of [0-9]+ invalid)");
  int rows = 0;
  for (std::sregex_iterator it(index.dom.begin(), index.dom.end(), row), end; it != end; ++it) {
    ++rows;
    EXPECT_GT(std::stod((*it)[2].str()), 0) << "grants/s: " << (*it)[0].str();
    EXPECT_LE(std::stod((*it)[3].str()), std::stod((*it)[4].str())) << (*it)[0].str();
  }
  EXPECT_EQ(rows, 1) << index.dom;  // both cells run the same lock under the same schedule
  for (const char* column : {"grants/s", "time to acquire", "in doubt", "failed, no answer",
                             "violations"}) {
    EXPECT_NE(index.dom.find(std::string("<dt>") + column + "</dt>"), std::string::npos) << column;
  }
  fs::create_directories("artifacts");
  const std::string index_shot = fs::absolute("artifacts/suite-index.png").string();
  fs::remove(index_shot);
  const Page index_shown = Load(outcome.dir + "/index.html", work.path(), index_shot);
  ASSERT_EQ(index_shown.status, 0) << index_shown.log;
  ASSERT_TRUE(fs::exists(index_shot));
  EXPECT_GT(fs::file_size(index_shot), 10'000u);

  // The artifact a CI keeps.
  fs::create_directories("artifacts");
  const std::string shot = fs::absolute("artifacts/failing-run-report.png").string();
  fs::remove(shot);
  const Page shown = Load(report, work.path(), shot);
  ASSERT_EQ(shown.status, 0) << shown.log;
  ASSERT_TRUE(fs::exists(shot));
  EXPECT_GT(fs::file_size(shot), 10'000u);  // a blank page is a few hundred bytes
}


Op HistoryOp(int64_t index, int64_t time_ms, int64_t process, OpType type, std::string f,
             std::string key = "", nlohmann::json value = nullptr, std::string error = "") {
  Op op;
  op.index = index, op.time = time_ms * 1'000'000, op.process = process, op.type = type;
  op.f = std::move(f), op.key = std::move(key), op.value = std::move(value);
  op.error = std::move(error);
  return op;
}

Op Marked(Op op, int64_t window, const std::string& family, bool begins) {
  op.fault = FaultMark{window, family, begins}.ToJson();
  return op;
}

// A run's report with every kind of fault a run records (values as the
// nemeses write them): its fault lanes, clock offsets and the double
// holder's story (the pause of the first holder explains it) load without a
// script error. A screenshot of it is kept as an artifact.
TEST(BrowserIntegrationTest, AFaultyRunsReportTellsTheDoubleHoldersStory) {
  testing::TempDir dir, work;
  const nlohmann::json grudge = {{"c1", {"n1"}}, {"n1", {"c1"}}};
  const History h = {
      Marked(HistoryOp(0, 100, kNemesisProcess, OpType::kInvoke, "kill"), 0, "kill", true),
      Marked(HistoryOp(1, 110, kNemesisProcess, OpType::kInfo, "kill", "", {{"nodes", {"n1"}}}),
             0, "kill", true),
      Marked(HistoryOp(2, 300, kNemesisProcess, OpType::kInfo, "restart"), 0, "kill", false),
      HistoryOp(3, 900, 0, OpType::kInvoke, "acquire", "lock-0"),
      HistoryOp(4, 1000, 0, OpType::kOk, "acquire", "lock-0", {{"validity_ms", 1000}}),
      Marked(HistoryOp(5, 1400, kNemesisProcess, OpType::kInvoke, "client-pause", "",
                       {{"ms", 2000}}),
             1, "client-pause", true),
      Marked(HistoryOp(6, 1500, kNemesisProcess, OpType::kInfo, "client-pause", "",
                       {{"ms", 2000}, {"process", 0}, {"key", "lock-0"}}),
             1, "client-pause", true),
      Marked(HistoryOp(7, 1600, kNemesisProcess, OpType::kInfo, "partition", "",
                       {{"grudge", grudge}, {"shape", "auto"}}),
             2, "partition", true),
      HistoryOp(8, 2500, 1, OpType::kInvoke, "acquire", "lock-0"),
      HistoryOp(9, 2600, 1, OpType::kOk, "acquire", "lock-0", {{"validity_ms", 1000}}),
      HistoryOp(10, 3000, kServiceProcess, OpType::kInfo, "leader-elected", "",
                {{"from", "n1"}, {"to", "n3"}, {"witness", "w1"}}),
      HistoryOp(11, 3200, 1, OpType::kInvoke, "release", "lock-0"),
      HistoryOp(12, 3300, 1, OpType::kOk, "release", "lock-0"),
      HistoryOp(13, 3400, 2, OpType::kOk, "lock-lost", "lock-1", nullptr, "the session expired"),
      Marked(HistoryOp(14, 3600, kNemesisProcess, OpType::kInfo, "clock-bump", "",
                       {{"clocks", {{"n3", {{"observed_offset_ms", 10002.5}}}}}}),
             3, "clock", true),
      HistoryOp(15, 3700, 0, OpType::kInvoke, "release", "lock-0"),
      HistoryOp(16, 3800, 0, OpType::kOk, "release", "lock-0"),
      Marked(HistoryOp(17, 3950, kNemesisProcess, OpType::kInfo, "client-resume"), 1,
             "client-pause", false),
      Marked(HistoryOp(18, 4000, kNemesisProcess, OpType::kInfo, "heal"), 2, "partition", false),
      Marked(HistoryOp(19, 4100, kNemesisProcess, OpType::kInfo, "clock-reset", "",
                       {{"clocks", {{"n3", {{"observed_offset_ms", 0.2}}}}}}),
             3, "clock", false),
  };
  const nlohmann::json anomaly = {
      {"type", "double-holder"},
      {"class", "expired-lease"},
      {"checker", "double-holder"},
      {"key", "lock-0"},
      {"holders", {{{"process", 0}, {"acquire", OpRef(h[4])}, {"release", OpRef(h[15])}},
                   {{"process", 1}, {"acquire", OpRef(h[9])}, {"release", OpRef(h[11])}}}},
      {"overlap_ns", {2'600'000'000, 3'200'000'000}},
      {"ops", {OpRef(h[4]), OpRef(h[9])}}};
  // With the fault descriptions and the service's event kinds a run writes
  // into results.json.
  const nlohmann::json results = {
      {"valid", false},
      {"anomalies", {anomaly}},
      {"stats", {{"double-holder", {{"valid", false}, {"stats", {{"double_holders", 1}}}}}}},
      {"fault_descriptions", DescribeFaults(h)},
      {"service_events",
       {{"source", "witnesses"},
        {"reporter_field", "witness"},
        {"kinds", {{{"name", "leader-elected"}, {"meaning", "a new leader"}, {"new_leader", true}}}}}}};
  const std::string report = dir.path() + "/report.html";
  ASSERT_TRUE(WriteHtmlReport(h, results, {{"backend", "redis"}}, report).ok());

  const Page page = Load(report, work.path());
  ASSERT_EQ(page.status, 0) << page.log;
  EXPECT_TRUE(ScriptErrors(page.log).empty()) << ScriptErrors(page.log).front();
  // The lanes the timeline drew, one per family, and the clock's node.
  EXPECT_NE(page.dom.find("data-fault-lanes=\"kill,partition,clock,client-pause,promotion,"
                          "lock-lost\""),
            std::string::npos);
  EXPECT_NE(page.dom.find("data-clock-nodes=\"n3\""), std::string::npos);
  // The story: when, who, how long together, and the pause that explains it.
  EXPECT_NE(page.dom.find("class=\"story\""), std::string::npos);
  EXPECT_NE(page.dom.find("At <b>2.600 s</b> p1 acquired"), std::string::npos);
  EXPECT_NE(page.dom.find("its lease ended at 2.000 s"), std::string::npos);
  EXPECT_NE(page.dom.find("Two holders for <b>600 ms</b>"), std::string::npos);
  EXPECT_NE(page.dom.find("client-pause p0 holding lock-0"), std::string::npos);
  EXPECT_NE(page.dom.find("class=\"story-svg\""), std::string::npos);
  EXPECT_NE(page.dom.find("c1 cut from n1"), std::string::npos);
  EXPECT_NE(page.dom.find("promotion n1"), std::string::npos);
  EXPECT_NE(page.dom.find("id=\"availability\""), std::string::npos);

  fs::create_directories("artifacts");
  const std::string shot = fs::absolute("artifacts/faulty-run-report.png").string();
  fs::remove(shot);
  const Page shown = Load(report, work.path(), shot);
  ASSERT_EQ(shown.status, 0) << shown.log;
  EXPECT_GT(fs::file_size(shot), 10'000u);
}

// store/index.html after two suites and a lone run: it loads without a
// script error and links every run's report and every suite's index, each
// link a file.
TEST(BrowserIntegrationTest, TheStoreIndexLoadsAndLinksEveryRunAndSuite) {
  testing::TempDir store, work;
  SignalWatcher signals;
  std::ostringstream out;
  for (const char* name : {"first", "second"}) {
    auto suite = ParseSuite(nlohmann::json::parse(R"({"seed": 4,
        "base": {"time_limit_s": 0.3, "concurrency": 2},
        "cells": [{"name": "fine"}, {"name": "broken"}]})"),
                            name, SuiteOverrides{std::nullopt, store.path(), std::nullopt});
    ASSERT_TRUE(suite.ok()) << suite.error();
    const SuiteOutcome outcome = ExecuteSuite(*suite, signals, testing::FakeRunModules(), out);
    ASSERT_TRUE(outcome.error.empty()) << outcome.error;
  }
  // A lone run beside them, as `locksmith run` leaves it (a one-run store entry).
  RunConfig config;
  config.store = store.path();
  config.test_name = "broken-alone";
  config.time_limit_s = 0.3;
  config.concurrency = 2;
  config.seed = 9;
  const RunOutcome lone = ExecuteRun(config, signals, testing::FakeRunModules());
  ASSERT_FALSE(lone.run_dir.empty()) << lone.error;
  UpdateStoreIndex(store.path(), std::cerr);

  const Page index = Load(store.path() + "/index.html", work.path());
  ASSERT_EQ(index.status, 0) << index.log;
  EXPECT_TRUE(ScriptErrors(index.log).empty()) << ScriptErrors(index.log).front();
  const std::regex link("href=\"([^\"]+)\"");
  std::vector<std::string> links;
  for (std::sregex_iterator it(index.dom.begin(), index.dom.end(), link), end; it != end; ++it) {
    links.push_back((*it)[1].str());
    EXPECT_TRUE(fs::exists(store.path() + "/" + links.back())) << links.back();
  }
  const std::string lone_dir = fs::relative(lone.run_dir, store.path()).string();
  EXPECT_NE(std::find(links.begin(), links.end(), lone_dir + "/report.html"), links.end());
  EXPECT_EQ(std::count_if(links.begin(), links.end(),
                          [](const std::string& l) {
                            return l.rfind("suites/", 0) == 0 && l.ends_with("/index.html");
                          }),
            2);
  EXPECT_EQ(links.size(), 3u);
  EXPECT_NE(index.dom.find("invalid"), std::string::npos);
}

}  // namespace
}  // namespace locksmith
