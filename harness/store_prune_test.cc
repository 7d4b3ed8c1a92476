// StorePrune on a store made in a temporary directory: old runs keep their
// summaries, old suites lose only the run directories their summary lists,
// links are never followed, and the trend still draws every night after.
#include "harness/store_prune.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/testing/temp_dir.h"
#include "harness/trend_command.h"
#include "reports/store_index.h"
#include "reports/testing/suite_nights.h"

namespace locksmith {
namespace {

namespace fs = std::filesystem;

void Write(const fs::path& path, const std::string& text = "{}") {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// A finished run's files.
void MakeRun(const fs::path& dir) {
  Write(dir / "config.json", R"({"backend":"redis","workload":"mutex"})");
  Write(dir / "results.json", R"({"valid":true,"anomalies":[]})");
  Write(dir / "history.bin", std::string(4096, 'h'));
  Write(dir / "report.html", "<html></html>");
  Write(dir / "n1" / "redis.log", "log");
}

// Nights 2026-01-0N of suite "nightly" under `root`, each with its run
// directories as the summary lists them.
void MakeSuites(const fs::path& root, int nights) {
  auto records = testing::FiveNights();
  for (int n = 0; n < nights; ++n) {
    const fs::path dir = root / "suites" / "nightly" / ("2026010" + std::to_string(n + 1) +
                                                        "T020000.000Z");
    fs::create_directories(dir);
    ASSERT_TRUE(WriteSuiteReports(records[n], dir.string()).ok());
    for (const SuiteRun& run : records[n].runs) MakeRun(dir / run.dir);
  }
}

std::chrono::system_clock::time_point Jan(int day) {
  return std::chrono::system_clock::from_time_t(*StampSeconds(
      "202601" + std::string(day < 10 ? "0" : "") + std::to_string(day) + "T120000Z"));
}

TEST(StorePruneTest, OldRunsKeepTheirSummariesAndTheNewestStayWhole) {
  testing::TempDir store;
  const fs::path root(store.path());
  for (int d = 1; d <= 3; ++d) MakeRun(root / "lock-test" / ("2026010" + std::to_string(d) + "T010000.000Z"));
  auto report = PruneStore(store.path(), {1, std::nullopt}, Jan(10));
  ASSERT_TRUE(report.ok()) << report.error();
  EXPECT_EQ(report->pruned.size(), 2u);
  for (const char* stamp : {"20260101T010000.000Z", "20260102T010000.000Z"}) {
    const fs::path dir = root / "lock-test" / stamp;
    EXPECT_TRUE(fs::exists(dir / "config.json"));
    EXPECT_TRUE(fs::exists(dir / "results.json"));
    EXPECT_FALSE(fs::exists(dir / "history.bin"));
    EXPECT_FALSE(fs::exists(dir / "n1"));
  }
  EXPECT_TRUE(fs::exists(root / "lock-test" / "20260103T010000.000Z" / "history.bin"));
  // The index still lists all three, with their verdicts.
  const auto entries = ScanStore(store.path());
  ASSERT_EQ(entries.size(), 3u);
  for (const auto& e : entries) EXPECT_EQ(e.verdict, "valid");
  // Pruned again: nothing left to do.
  EXPECT_TRUE(PruneStore(store.path(), {1, std::nullopt}, Jan(10))->pruned.empty());
}

TEST(StorePruneTest, KeepDaysKeepsTheYoungAndEitherRuleKeeps) {
  testing::TempDir store;
  const fs::path root(store.path());
  for (int d = 1; d <= 4; ++d) MakeRun(root / "t" / ("2026010" + std::to_string(d) + "T010000.000Z"));
  // On Jan 5 12:00: Jan 4 01:00 is 1.46 days old, Jan 3 2.46.
  auto report = PruneStore(store.path(), {std::nullopt, 2.0}, Jan(5));
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->pruned, (std::vector<std::string>{"t/20260103T010000.000Z",
                                                      "t/20260102T010000.000Z",
                                                      "t/20260101T010000.000Z"}));
  testing::TempDir other;
  for (int d = 1; d <= 4; ++d) MakeRun(fs::path(other.path()) / "t" / ("2026010" + std::to_string(d) + "T010000.000Z"));
  EXPECT_EQ(PruneStore(other.path(), {3, 2.0}, Jan(5))->pruned.size(), 1u);
}

TEST(StorePruneTest, OldSuitesLoseTheirRunDirectoriesAndKeepSummaryAndIndex) {
  testing::TempDir store;
  const fs::path root(store.path());
  MakeSuites(root, 5);
  auto report = PruneStore(store.path(), {2, std::nullopt}, Jan(10));
  ASSERT_TRUE(report.ok()) << report.error();
  EXPECT_EQ(report->pruned.size(), 3u);
  const fs::path old = root / "suites" / "nightly" / "20260101T020000.000Z";
  for (const char* file : {"summary.json", "junit.xml", "index.html"}) {
    EXPECT_TRUE(fs::exists(old / file)) << file;
  }
  EXPECT_FALSE(fs::exists(old / "kill-clean"));  // the cell's directory, emptied, went too
  std::ifstream index(old / "index.html");
  std::stringstream text;
  text << index.rdbuf();
  EXPECT_EQ(text.str().find("report.html"), std::string::npos);  // no link to a run gone
  EXPECT_TRUE(fs::exists(root / "suites" / "nightly" / "20260105T020000.000Z" / "kill-clean"));
  EXPECT_GT(report->bytes_freed, 3u * 20 * 4096);

  // The trend over the store still has its five nights and its regression.
  std::vector<std::string> warnings;
  auto sections = TrendSectionsOf({store.path()}, store.path() + "/trend", warnings);
  ASSERT_TRUE(sections.ok()) << sections.error();
  ASSERT_EQ(sections->size(), 1u);
  EXPECT_EQ((*sections)[0].nights.size(), 5u);
  EXPECT_EQ((*sections)[0].nights[0].link, "../suites/nightly/20260101T020000.000Z/index.html");
  EXPECT_EQ((*sections)[0].nights[0].label, "2026-01-01 02:00:00 UTC");
  EXPECT_TRUE(warnings.empty());
}

TEST(StorePruneTest, LinksAreNeverFollowedAndForeignDirectoriesNeverTouched) {
  testing::TempDir store, outside;
  const fs::path root(store.path()), away(outside.path());
  MakeRun(away / "victim");
  for (int d = 1; d <= 2; ++d) MakeRun(root / "t" / ("2026010" + std::to_string(d) + "T010000.000Z"));
  // An old stamp that is a link to a run outside, a link inside an old run
  // pointing out, and a directory whose name is no stamp.
  fs::create_directory_symlink(away / "victim", root / "t" / "20250101T010000.000Z");
  fs::create_directory_symlink(away / "victim", root / "t" / "20260101T010000.000Z" / "out");
  MakeRun(root / "t" / "not-a-stamp");
  MakeRun(root / "t2" / "20240101T010000.000Z");
  MakeRun(root / "t2" / "20260105T010000.000Z");
  Write(root / "t2" / "20240101T010000.000Z" / "config.json.bak");
  fs::remove(root / "t2" / "20240101T010000.000Z" / "results.json");  // still running
  auto report = PruneStore(store.path(), {1, std::nullopt}, Jan(10));
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->pruned, std::vector<std::string>{"t/20260101T010000.000Z"});
  EXPECT_TRUE(fs::exists(away / "victim" / "history.bin"));
  EXPECT_TRUE(fs::exists(away / "victim" / "n1" / "redis.log"));
  EXPECT_FALSE(fs::exists(fs::symlink_status(root / "t" / "20260101T010000.000Z" / "out")));
  EXPECT_TRUE(fs::exists(root / "t" / "not-a-stamp" / "history.bin"));
  EXPECT_TRUE(fs::exists(root / "t2" / "20240101T010000.000Z" / "history.bin"));
  ASSERT_EQ(report->skipped.size(), 1u);
  EXPECT_NE(report->skipped[0].find("no results.json"), std::string::npos);
}

TEST(StorePruneTest, ABadStoreOrRuleIsRefusedWithNothingTouched) {
  testing::TempDir store, holder;
  MakeRun(fs::path(store.path()) / "t" / "20260101T010000.000Z");
  MakeRun(fs::path(store.path()) / "t" / "20260102T010000.000Z");
  const std::string link = holder.path() + "/store-link";
  fs::create_directory_symlink(store.path(), link);
  auto linked = PruneStore(link, {1, std::nullopt}, Jan(10));
  ASSERT_FALSE(linked.ok());
  EXPECT_NE(linked.error().find("symbolic link"), std::string::npos);
  EXPECT_FALSE(PruneStore(store.path(), {}, Jan(10)).ok());
  EXPECT_FALSE(PruneStore(store.path(), {0, std::nullopt}, Jan(10)).ok());
  EXPECT_FALSE(PruneStore(holder.path() + "/none", {1, std::nullopt}, Jan(10)).ok());
  EXPECT_TRUE(fs::exists(fs::path(store.path()) / "t" / "20260101T010000.000Z" / "history.bin"));
  std::ostringstream out, err;
  EXPECT_EQ(PruneStoreCommand(link, {1, std::nullopt}, out, err), 254);
  const std::string said = err.str();
  EXPECT_EQ(std::count(said.begin(), said.end(), '\n'), 1) << said;
}

}  // namespace
}  // namespace locksmith
