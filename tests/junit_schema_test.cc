// Every junit.xml locksmith writes validates against the JUnit schema CI
// tools use (reports/testdata/junit-10.xsd, the Jenkins xUnit plugin's; see
// its header for where it comes from), checked with xmllint (Debian's
// libxml2-utils): a suite's (valid, invalid and interrupted runs), the one
// `run --test-count K` writes (a suite of one cell), each run's own, and
// hand-made ones with hostile text, failed runs and long or tiny durations.
// Suites run on fakes: no root, no servers.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/testing/temp_dir.h"
#include "harness/signal_watcher.h"
#include "harness/suite_runner.h"
#include "harness/testing/fake_run_modules.h"
#include "reports/junit_report.h"
#include "reports/suite_report.h"

namespace locksmith {
namespace {

namespace fs = std::filesystem;

const std::string kSchema = LOCKSMITH_SOURCE_DIR "/reports/testdata/junit-10.xsd";

// xmllint's verdict on `file`: empty when it validates, else what it said.
std::string SchemaErrors(const std::string& file) {
  const std::string log = file + ".xmllint.txt";
  const std::string command =
      "xmllint --noout --schema '" + kSchema + "' '" + file + "' >'" + log + "' 2>&1";
  const int raw = std::system(command.c_str());
  std::ifstream in(log);
  std::stringstream said;
  said << in.rdbuf();
  if (WIFEXITED(raw) && WEXITSTATUS(raw) == 0) return "";
  if (WIFEXITED(raw) && WEXITSTATUS(raw) == 127) {
    return "xmllint is missing: scripts/setup.sh --tests installs it (libxml2-utils)";
  }
  return said.str().empty() ? "xmllint failed" : said.str();
}

SuiteOutcome RunSuiteOnFakes(const std::string& json, const std::string& name,
                             const std::string& store) {
  auto suite = ParseSuite(nlohmann::json::parse(json), name,
                          SuiteOverrides{std::nullopt, store, std::nullopt});
  EXPECT_TRUE(suite.ok()) << suite.error();
  SignalWatcher signals;
  std::ostringstream out;
  SuiteOutcome outcome = ExecuteSuite(*suite, signals, testing::FakeRunModules(&signals), out);
  EXPECT_TRUE(outcome.error.empty()) << outcome.error;
  return outcome;
}

TEST(JunitSchemaTest, TheSchemaItselfIsThere) {
  ASSERT_TRUE(fs::exists(kSchema)) << kSchema;
  // An empty report validates: xmllint and the schema work.
  testing::TempDir dir;
  const std::string file = dir.path() + "/empty.xml";
  std::ofstream(file) << "<?xml version=\"1.0\"?>\n<testsuites/>\n";
  EXPECT_EQ(SchemaErrors(file), "");
  // And a wrong one does not: the check is real.
  std::ofstream(file) << "<?xml version=\"1.0\"?>\n<testsuites><testcase/></testsuites>\n";
  EXPECT_NE(SchemaErrors(file), "");
}

TEST(JunitSchemaTest, ASuitesJunitValidatesAndSoDoesEachRuns) {
  testing::TempDir store;
  const SuiteOutcome outcome = RunSuiteOnFakes(R"({"seed": 11,
      "description": "two locks <&> \"quoted\"",
      "base": {"time_limit_s": 0.3, "concurrency": 3},
      "cells": [{"name": "fine"}, {"name": "broken"}, {"name": "interrupted"}]})",
                                               "schema", store.path());
  ASSERT_EQ(outcome.record.runs.size(), 3u);
  EXPECT_EQ(outcome.record.runs[1].verdict, "invalid");
  const std::string junit = outcome.dir + "/junit.xml";
  EXPECT_EQ(SchemaErrors(junit), "");
  std::ifstream in(junit);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("<failure"), std::string::npos);  // the broken run
  for (const auto& run : outcome.record.runs) {
    if (run.dir.empty()) continue;
    EXPECT_EQ(SchemaErrors(outcome.dir + "/" + run.dir + "/junit.xml"), "") << run.dir;
  }
}

TEST(JunitSchemaTest, TheTestCountJunitValidates) {
  // `run --test-count 3` is a suite of one cell run three times.
  testing::TempDir store;
  const SuiteOutcome outcome = RunSuiteOnFakes(R"({"seed": 3, "test_count": 3,
      "cells": [{"name": "broken-sometimes", "time_limit_s": 0.2, "concurrency": 2}]})",
                                               "broken-sometimes", store.path());
  ASSERT_EQ(outcome.record.runs.size(), 3u);
  EXPECT_EQ(SchemaErrors(outcome.dir + "/junit.xml"), "");
}

TEST(JunitSchemaTest, HandMadeSuitesWithHostileTextAndOddDurationsValidate) {
  SuiteRecord suite;
  suite.name = "odd \x01 <name> & \"quotes\" \xff";
  suite.seed = 18446744073709551615ull;
  suite.interrupted = "by SIGINT ]]> during run 2";
  suite.planned_runs = 4;
  const double durations[] = {0.0000123, 1234567.891, 0, 12.5};
  // A verdict read back from a summary.json someone edited: an attribute too.
  const char* verdicts[] = {"valid", "invalid", "unknown", "failed\" injected=\"<&>"};
  for (int i = 0; i < 4; ++i) {
    SuiteRun run;
    run.cell = std::string("cell\t<") + std::to_string(i) + ">";
    run.repeat = i;
    run.seed = 7;
    run.dir = i == 3 ? "" : "cell/2026 \"x\"";
    run.exit_code = i == 3 ? 255 : i;
    run.verdict = verdicts[i];
    run.error = i == 3 ? "servers: redis-server \x1b[31m did not start" : "";
    if (i == 1) run.anomalies = {{"double-holder", 3}, {"lost <update>", 1}};
    run.duration_s = durations[i];
    suite.runs.push_back(run);
    suite.cells.push_back(run.cell);
  }
  testing::TempDir dir;
  ASSERT_TRUE(WriteSuiteReports(suite, dir.path()).ok());
  EXPECT_EQ(SchemaErrors(dir.path() + "/junit.xml"), "");

  // A run's own, from hostile results and config.
  const nlohmann::json results = {
      {"valid", false},
      {"anomalies", {{{"type", "double-holder\x02<x>"}, {"key", "]]>"}}}},
      {"interrupted", true},
      {"interruption", {{"message", "by SIGINT after 4.2 s"}}}};
  const nlohmann::json config = {{"test_name", "t <&>"}, {"backend", "redis"}};
  const std::string run_junit = dir.path() + "/run-junit.xml";
  ASSERT_TRUE(WriteJunitXml(results, config, run_junit, 1e-7).ok());
  EXPECT_EQ(SchemaErrors(run_junit), "");
  ASSERT_TRUE(WriteJunitXml(results, config, run_junit, 98765432.1).ok());
  EXPECT_EQ(SchemaErrors(run_junit), "");
}

}  // namespace
}  // namespace locksmith
