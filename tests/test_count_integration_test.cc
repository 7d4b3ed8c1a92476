// `locksmith run --test-count 10` on a scenario that fails sometimes (a
// client pause past the lease, timed so that some runs end before the other
// client gets the lock): the printed rate and the summary's Wilson interval
// are those of the individual runs' own verdicts, the interval contains the
// observed rate, the median time to the first violation lies among the
// invalid runs' own, and the JUnit file counts the same failures.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "reports/suite_report.h"
#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using std::chrono::seconds;

json ReadJsonFile(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in, nullptr, /*allow_exceptions=*/false);
}

TEST(TestCountIntegrationTest, TheRateAndIntervalAreTheIndividualRunsOwn) {
  TempDir dir;
  std::string out;
  const int code = RunLocksmith(
      dir.path(),
      {"run", "--nemesis", "client-pause", "--nemesis-interval", "2", "--time-limit", "3.4",
       "--concurrency", "3", "--keys", "1", "--test-count", "10", "--seed", "7", "--store",
       "store"},
      seconds(300), &out);
  ASSERT_LE(code, 2) << out;  // a verdict, not a failed run

  // The suite directory: store/suites/NAME/STAMP.
  std::vector<fs::path> suites;
  for (const auto& name : fs::directory_iterator(dir.path() + "/store/suites")) {
    if (!fs::is_directory(name) || fs::is_symlink(name)) continue;
    for (const auto& stamp : fs::directory_iterator(name)) {
      if (fs::is_directory(stamp) && !fs::is_symlink(stamp)) suites.push_back(stamp.path());
    }
  }
  ASSERT_EQ(suites.size(), 1u);
  const json summary = ReadJsonFile(suites[0].string() + "/summary.json");
  ASSERT_FALSE(summary.is_discarded());
  ASSERT_EQ(summary["runs"].size(), 10u);

  // What each run says about itself, from its own results.json.
  int judged = 0, invalid = 0;
  std::vector<double> firsts;
  for (const auto& row : summary["runs"]) {
    const json results = ReadJsonFile(suites[0].string() + "/" +
                                      row["dir"].get<std::string>() + "/results.json");
    ASSERT_FALSE(results.is_discarded()) << row.dump();
    const std::string verdict = results["valid"] == true    ? "valid"
                                : results["valid"] == false ? "invalid"
                                                            : "unknown";
    EXPECT_EQ(row["verdict"], verdict) << row.dump();
    judged += verdict != "unknown";
    invalid += verdict == "invalid";
    if (verdict == "invalid") firsts.push_back(row["first_violation_s"].get<double>());
  }
  std::printf("violations in %d of %d judged runs (of 10)\n", invalid, judged);
  // Invalid beats unknown (a run whose pause the time limit cut short:
  // not observed) beats valid.
  EXPECT_EQ(code, invalid > 0 ? 1 : judged < 10 ? 2 : 0);

  ASSERT_EQ(summary["cells"].size(), 1u);
  const json cell = summary["cells"].begin().value();
  EXPECT_EQ(cell["runs"], 10);
  EXPECT_EQ(cell["judged"], judged);
  EXPECT_EQ(cell["violations"], invalid);
  ASSERT_GT(judged, 0);
  const double rate = static_cast<double>(invalid) / judged;
  const Interval wilson = WilsonInterval(invalid, judged);
  EXPECT_DOUBLE_EQ(cell["wilson_95"][0].get<double>(), wilson.low);
  EXPECT_DOUBLE_EQ(cell["wilson_95"][1].get<double>(), wilson.high);
  EXPECT_LE(wilson.low, rate);
  EXPECT_GE(wilson.high, rate);
  EXPECT_DOUBLE_EQ(cell["violation_rate"].get<double>(), rate);
  if (!firsts.empty()) {
    const double median = cell["median_first_violation_s"].get<double>();
    EXPECT_GE(median, *std::min_element(firsts.begin(), firsts.end()));
    EXPECT_LE(median, *std::max_element(firsts.begin(), firsts.end()));
  }

  // The printed line, e.g. "3 of 10 invalid [11–60%]".
  char interval[64];
  std::snprintf(interval, sizeof interval, "[%.0f\xE2\x80\x93%.0f%%]", wilson.low * 100,
                wilson.high * 100);
  const std::string expected = std::to_string(invalid) + " of " + std::to_string(judged) +
                               " invalid " + interval;
  EXPECT_NE(out.find(expected), std::string::npos) << expected << "\n" << out;

  // The JUnit file: one test case a run, a failure for each invalid one.
  std::ifstream junit_file(suites[0].string() + "/junit.xml");
  const std::string junit((std::istreambuf_iterator<char>(junit_file)),
                          std::istreambuf_iterator<char>());
  EXPECT_NE(junit.find("tests=\"10\" failures=\"" + std::to_string(invalid) + "\""),
            std::string::npos)
      << junit.substr(0, 400);
}

}  // namespace
}  // namespace locksmith::testing
