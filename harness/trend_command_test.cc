// `locksmith compare` and `locksmith trend` on summaries the suite writer
// wrote: exit codes, the JSON, one line for bad input.
#include "harness/trend_command.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/testing/temp_dir.h"
#include "reports/testing/suite_nights.h"

namespace locksmith {
namespace {

namespace fs = std::filesystem;

// The five nights as suite directories dir/n1 ... dir/n5.
std::vector<std::string> FiveSuiteDirs(const std::string& dir) {
  std::vector<std::string> dirs;
  int n = 0;
  for (const SuiteRecord& record : testing::FiveNights()) {
    dirs.push_back(dir + "/n" + std::to_string(++n));
    fs::create_directories(dirs.back());
    EXPECT_TRUE(WriteSuiteReports(record, dirs.back()).ok());
  }
  return dirs;
}

int Lines(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

TEST(TrendCommandTest, CompareExitsOneOnTheRegressionAndZeroOnIdenticalNights) {
  testing::TempDir dir;
  const auto nights = FiveSuiteDirs(dir.path());
  std::ostringstream out, err;
  EXPECT_EQ(CompareSummaries(nights[3], nights[4] + "/summary.json", false, out, err), 1);
  EXPECT_NE(out.str().find("REGRESSED replica-failover: violations on a cell clean on every "
                           "earlier night"),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("changed   zk-partition\n    acquire p99 20 ms -> 80 ms"),
            std::string::npos)
      << out.str();
  std::ostringstream same, same_err;
  EXPECT_EQ(CompareSummaries(nights[2], nights[3], false, same, same_err), 0);
  EXPECT_NE(same.str().find("no cell changed"), std::string::npos) << same.str();
  EXPECT_EQ(same_err.str(), "");
}

TEST(TrendCommandTest, CompareJsonNamesTheRegressedCellAndItsRule) {
  testing::TempDir dir;
  const auto nights = FiveSuiteDirs(dir.path());
  std::ostringstream out, err;
  ASSERT_EQ(CompareSummaries(nights[0], nights[4], true, out, err), 1);
  const auto j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["regressed"], 1);
  const auto& cells = j["cells"];
  auto it = std::find_if(cells.begin(), cells.end(),
                         [](const auto& c) { return c["cell"] == "replica-failover"; });
  ASSERT_NE(it, cells.end());
  EXPECT_EQ((*it)["regressed"], true);
  EXPECT_EQ((*it)["newly_violating"], true);
  EXPECT_EQ((*it)["rate_rose"], false);
  EXPECT_EQ((*it)["old"]["violations"], 0);
  EXPECT_EQ((*it)["new"]["violations"], 3);
}

TEST(TrendCommandTest, BadInputIsOneLineAnd254) {
  testing::TempDir dir;
  const auto nights = FiveSuiteDirs(dir.path());
  std::ofstream(dir.path() + "/broken.json") << "{\"suite\": 3}";
  for (const std::string& bad : {dir.path() + "/none", dir.path() + "/broken.json", dir.path()}) {
    std::ostringstream out, err;
    EXPECT_EQ(CompareSummaries(nights[0], bad, false, out, err), 254) << bad;
    EXPECT_EQ(Lines(err.str()), 1) << err.str();
    std::ostringstream tout, terr;
    EXPECT_EQ(WriteTrend(dir.path() + "/trend", {nights[0], bad}, tout, terr), 254) << bad;
    EXPECT_EQ(Lines(terr.str()), 1) << terr.str();
  }
}

TEST(TrendCommandTest, TrendWritesThePageWithEachNightLinked) {
  testing::TempDir dir;
  const auto nights = FiveSuiteDirs(dir.path());
  std::ostringstream out, err;
  ASSERT_EQ(WriteTrend(dir.path() + "/out", nights, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("REGRESSED replica-failover"), std::string::npos) << out.str();
  std::ifstream page(dir.path() + "/out/trend.html");
  std::stringstream html;
  html << page.rdbuf();
  for (int n = 1; n <= 5; ++n) {
    EXPECT_NE(html.str().find("href=\"../n" + std::to_string(n) + "/index.html\""),
              std::string::npos);
  }
  EXPECT_NE(html.str().find("data-cell=\"replica-failover\""), std::string::npos);
}

}  // namespace
}  // namespace locksmith
