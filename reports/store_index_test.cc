// StoreIndex on hand-made stores: runs and suites found, newest first, their
// verdicts and anomaly counts from results.json / summary.json, links to
// existing pages only, every value escaped, and a store of thousands of runs.
#include "reports/store_index.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

namespace locksmith {
namespace {

namespace fs = std::filesystem;

class StoreIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = "/tmp/locksmith-store-index-XXXXXX";
    root_ = mkdtemp(pattern.data());
  }
  void TearDown() override { fs::remove_all(root_); }

  void Write(const std::string& rel, const std::string& text) {
    fs::create_directories(fs::path(root_ + "/" + rel).parent_path());
    std::ofstream(root_ + "/" + rel) << text;
  }
  void Run(const std::string& dir, const nlohmann::json& config, const nlohmann::json& results) {
    Write(dir + "/config.json", config.dump());
    if (!results.is_null()) Write(dir + "/results.json", results.dump(2));
    Write(dir + "/report.html", "<html></html>");
  }

  std::string root_;
};

nlohmann::json Anomalies(int n) {
  nlohmann::json a = nlohmann::json::array();
  for (int i = 0; i < n; ++i) {
    a.push_back({{"type", "double-holder"}, {"ops", {{{"index", i}, {"valid", true}}}}});
  }
  return a;
}

TEST_F(StoreIndexTest, ListsRunsAndSuitesNewestFirstWithTheirVerdicts) {
  Run("redis-kill/20261124T010000.000Z",
      {{"backend", "redis"}, {"client", "redis"}, {"workload", "mutex"}, {"nemesis", "kill"},
       {"time_limit_s", 20}},
      {{"anomalies", Anomalies(3)},
       {"stats", {{"double-holder", {{"valid", true}}}}},
       {"valid", false}});
  Run("zk/20261124T030000.000Z", {{"backend", "zookeeper"}, {"workload", "mutex"}},
      {{"anomalies", nlohmann::json::array()}, {"valid", true}, {"interrupted", true}});
  Run("redlock/20261124T020000.000Z", {{"backend", "redlock"}}, {{"valid", "unknown"}});
  Write("running/20261124T040000.000Z/config.json", "{}");  // no results yet
  Write("suites/nightly/20261124T005000.000Z/summary.json",
        nlohmann::json{{"suite", "nightly"},
                       {"planned_runs", 4},
                       {"completed_runs", 3},
                       {"exit_code", 1},
                       {"runs",
                        {{{"verdict", "invalid"}, {"exit_code", 1}},
                         {{"verdict", "valid"}, {"exit_code", 0}},
                         {{"verdict", "unknown"}, {"exit_code", 2}}}}}
            .dump());
  Write("suites/nightly/20261124T005000.000Z/index.html", "<html></html>");
  Write("not-a-run/20261124T050000.000Z/notes.txt", "x");  // no config.json: skipped
  fs::create_directory_symlink(root_ + "/zk/20261124T030000.000Z", root_ + "/latest");

  const std::vector<StoreEntry> entries = ScanStore(root_);
  ASSERT_EQ(entries.size(), 5u);
  EXPECT_EQ(entries[0].dir, "running/20261124T040000.000Z");
  EXPECT_EQ(entries[0].verdict, "no verdict");
  EXPECT_TRUE(entries[0].link.empty());  // no report.html
  EXPECT_EQ(entries[1].name, "zk");
  EXPECT_EQ(entries[1].verdict, "valid");
  EXPECT_TRUE(entries[1].interrupted);
  EXPECT_EQ(entries[2].verdict, "unknown");
  EXPECT_EQ(entries[3].name, "redis-kill");
  EXPECT_EQ(entries[3].verdict, "invalid");
  EXPECT_EQ(entries[3].anomalies, 3);
  EXPECT_EQ(entries[3].details, "redis/redis / mutex / kill, 20 s");
  EXPECT_EQ(entries[3].link, "redis-kill/20261124T010000.000Z/report.html");
  EXPECT_EQ(entries[4].kind, StoreEntry::Kind::kSuite);
  EXPECT_EQ(entries[4].verdict, "invalid");
  EXPECT_EQ(entries[4].anomalies, 1);
  EXPECT_EQ(entries[4].details, "3 of 4 runs, 1 invalid, 1 unknown");
  EXPECT_EQ(entries[4].link, "suites/nightly/20261124T005000.000Z/index.html");

  ASSERT_TRUE(WriteStoreIndex(root_).ok());
  std::ifstream in(root_ + "/index.html");
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("href=\"redis-kill/20261124T010000.000Z/report.html\""), std::string::npos);
  EXPECT_NE(html.find("href=\"suites/nightly/20261124T005000.000Z/index.html\""),
            std::string::npos);
  EXPECT_NE(html.find("4 runs and 1 suite,"), std::string::npos);
  EXPECT_NE(html.find("2026-11-24 01:00:00 UTC"), std::string::npos);
}

TEST_F(StoreIndexTest, EscapesEveryValueAndEncodesLinks) {
  const std::string evil = "a<b>&\"c#d?e%f g";
  Run(evil + "/20261124T010000.000Z",
      {{"backend", "<script>alert(1)</script>"}, {"workload", "x\"y"}},
      {{"valid", false}, {"anomalies", Anomalies(1)}});
  const std::string html = RenderStoreIndex(ScanStore(root_), root_ + "/<root>");
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_EQ(html.find("<b>"), std::string::npos);
  EXPECT_EQ(html.find("<root>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("href=\"a%3Cb%3E%26%22c%23d%3Fe%25f%20g/20261124T010000.000Z/report.html\""),
            std::string::npos);
}

TEST_F(StoreIndexTest, AnEmptyOrMissingStoreIsAnEmptyList) {
  EXPECT_TRUE(ScanStore(root_).empty());
  EXPECT_TRUE(ScanStore(root_ + "/nowhere").empty());
  EXPECT_NE(RenderStoreIndex({}, root_).find("0 runs and 0 suites"), std::string::npos);
}

TEST_F(StoreIndexTest, ADamagedFileIsLeftOutWithAWarningNamingIt) {
  Run("broken/20261124T010000.000Z", {{"backend", "redis"}}, nullptr);
  Write("broken/20261124T010000.000Z/results.json", "{\"valid\": fal");
  Write("suites/s/20261124T010000.000Z/summary.json", "not json");
  // Parses, but of the wrong types: what crashed every index before.
  Write("suites/t/20261124T020000.000Z/summary.json",
        R"({"suite": "t", "planned_runs": "many", "runs": []})");
  Write("suites/u/20261124T030000.000Z/summary.json",
        R"({"suite": "u", "runs": [{"dir": "../../../../etc", "exit_code": 1}]})");
  // Nested past the bound, out of a double's range, not an object.
  Run("deep/20261124T040000.000Z", {{"backend", "redis"}}, nullptr);
  Write("deep/20261124T040000.000Z/config.json", std::string(1000, '[') + std::string(1000, ']'));
  Write("deep/20261124T040000.000Z/results.json", R"({"valid": true, "x": 1e400})");
  Run("array/20261124T050000.000Z", nlohmann::json::array(), {{"valid", true}});
  // Not a regular file: a FIFO would block the index forever.
  Run("fifo/20261124T060000.000Z", {{"backend", "redis"}}, nullptr);
  ASSERT_EQ(mkfifo((root_ + "/fifo/20261124T060000.000Z/results.json").c_str(), 0600), 0);

  std::vector<std::string> warnings;
  const std::vector<StoreEntry> entries = ScanStore(root_, &warnings);
  ASSERT_EQ(entries.size(), 7u);
  for (const auto& e : entries) {
    EXPECT_EQ(e.verdict, e.name == "array" ? "valid" : "no verdict") << e.dir;
  }
  const std::vector<std::string> expected = {
      "/array/20261124T050000.000Z/config.json: not a JSON object",
      "/broken/20261124T010000.000Z/results.json: not valid JSON",
      "/deep/20261124T040000.000Z/results.json: not valid JSON",
      "/deep/20261124T040000.000Z/config.json: arrays and objects nest more than 200 deep",
      "/fifo/20261124T060000.000Z/results.json is not a regular file",
      "/suites/s/20261124T010000.000Z/summary.json: not valid JSON",
      "/suites/t/20261124T020000.000Z/summary.json: \"planned_runs\" must be a whole number",
      "/suites/u/20261124T030000.000Z/summary.json: runs[0]: \"dir\" must be a relative path",
  };
  ASSERT_EQ(warnings.size(), expected.size());
  for (const std::string& start : expected) {
    const bool said = std::any_of(warnings.begin(), warnings.end(), [&](const std::string& w) {
      return w.rfind(root_ + start, 0) == 0;
    });
    EXPECT_TRUE(said) << start;
  }
  // The page is written all the same.
  warnings.clear();
  ASSERT_TRUE(WriteStoreIndex(root_, &warnings).ok());
  EXPECT_EQ(warnings.size(), expected.size());
}

// A link planted inside the store is never followed: neither a run's
// results.json linked to a private file elsewhere, nor a linked run
// directory; each is one warning line.
TEST_F(StoreIndexTest, LinksInsideTheStoreAreNotFollowed) {
  const std::string outside = root_ + "-outside";
  fs::create_directories(outside + "/run");
  std::ofstream(outside + "/private.json") << R"({"valid": false, "anomalies": [1, 2, 3]})";
  std::ofstream(outside + "/run/config.json") << R"({"backend": "planted"})";
  Run("linked-results/20261124T010000.000Z", {{"backend", "redis"}}, nullptr);
  fs::create_symlink(outside + "/private.json",
                     root_ + "/linked-results/20261124T010000.000Z/results.json");
  fs::create_directories(root_ + "/linked-dir");
  fs::create_directory_symlink(outside + "/run", root_ + "/linked-dir/20261124T020000.000Z");
  std::vector<std::string> warnings;
  const auto entries = ScanStore(root_, &warnings);
  fs::remove_all(outside);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].verdict, "no verdict");
  EXPECT_EQ(entries[0].anomalies, 0);
  ASSERT_EQ(warnings.size(), 2u);
  for (const std::string& w : warnings) {
    EXPECT_NE(w.find("a symbolic link inside the store, not followed"), std::string::npos) << w;
  }
}

TEST_F(StoreIndexTest, ListsAStoreOfThousandsOfRuns) {
  // Each run's results.json carries many anomalies: they are counted, not kept.
  const std::string results =
      nlohmann::json{{"anomalies", Anomalies(200)}, {"valid", false}}.dump();
  for (int i = 0; i < 2000; ++i) {
    char stamp[32];
    std::snprintf(stamp, sizeof stamp, "20261124T%06d.000Z", i);
    const std::string dir = "run-" + std::to_string(i % 7) + "/" + stamp;
    Write(dir + "/config.json", "{\"backend\":\"redis\"}");
    Write(dir + "/results.json", results);
  }
  const std::vector<StoreEntry> entries = ScanStore(root_);
  ASSERT_EQ(entries.size(), 2000u);
  EXPECT_EQ(entries.front().stamp, "20261124T001999.000Z");
  EXPECT_EQ(entries.back().stamp, "20261124T000000.000Z");
  for (const auto& e : entries) ASSERT_EQ(e.anomalies, 200) << e.dir;
}

}  // namespace
}  // namespace locksmith
