// Every run config and suite the repository ships, through the parsers
// `locksmith run --config` and `locksmith suite` use: each scenario file
// (scenarios/*.json, and any other scenarios/ folder's) loads, validates and
// warns about nothing, every library scenario is listed, and each suite
// (suites/*.json) loads as it is and shortened as its integration test runs
// it (--time-scale 0.1 --test-count 1), and the debate matrix's data
// (scenarios/debate/matrix.json, docs/debate.json) loads. A key or bound that a change makes
// wrong fails here instead of at night. Any other JSON file in the sources
// fails too, until this test is told what it is (the fuzz targets' seeds,
// damaged on purpose, are scripts/fuzz.sh's).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "harness/debate_command.h"
#include "harness/run_config.h"
#include "harness/scenario_library.h"
#include "harness/suite_file.h"
#include "reports/debate_matrix.h"
#include "reports/run_results.h"

namespace locksmith {
namespace {

namespace fs = std::filesystem;

// The folders the project's files live in (docs/design.md's map); a build
// directory or a run store inside the checkout is none of them.
const char* const kSourceFolders[] = {"base",   "cluster", "checker",   "backends", "workloads",
                                      "nemesis", "reports", "harness",  "tests",    "scripts",
                                      "scenarios", "suites", "docker",   "docs",     "cmake"};

std::vector<fs::path> ShippedJsonFiles() {
  std::vector<fs::path> files;
  for (const char* folder : kSourceFolders) {
    const fs::path root = fs::path(LOCKSMITH_SOURCE_DIR) / folder;
    if (!fs::is_directory(root)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      if (entry.is_regular_file() && entry.path().extension() == ".json") {
        files.push_back(entry.path());
      }
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// A fuzz target's seed: crafted to be damaged (scripts/fuzz.sh feeds them).
bool IsFuzzSeed(const fs::path& file) {
  return file.string().find("/fuzz/corpus/") != std::string::npos;
}

// A run's own files kept as a test's fixture (reports/testdata/redis-kill-run):
// a run directory with its history.
bool IsRunFixture(const fs::path& file) {
  return file.string().find("/testdata/") != std::string::npos &&
         fs::exists(file.parent_path() / "history.bin") &&
         (file.filename() == "config.json" || file.filename() == "results.json");
}

bool IsScenario(const fs::path& file) { return file.parent_path().filename() == "scenarios"; }
// The debate matrix's shape (scenarios/debate/matrix.json) and the measured
// matrix docs/debate.md's tables are made from (docs/debate.json).
bool IsDebateData(const fs::path& file) {
  const fs::path root(LOCKSMITH_SOURCE_DIR);
  return file == root / "scenarios" / "debate" / "matrix.json" ||
         file == root / "docs" / "debate.json";
}
bool IsSuite(const fs::path& file) {
  return file.parent_path() == fs::path(LOCKSMITH_SOURCE_DIR) / "suites";
}

TEST(ShippedFilesTest, EveryJsonFileIsAScenarioOrASuite) {
  std::set<std::string> suites;
  int scenarios = 0;
  for (const auto& file : ShippedJsonFiles()) {
    if (IsFuzzSeed(file) || IsRunFixture(file)) continue;
    scenarios += IsScenario(file);
    if (IsSuite(file)) suites.insert(file.stem().string());
    EXPECT_TRUE(IsScenario(file) || IsSuite(file) || IsDebateData(file))
        << file << " is neither a scenario nor a suite: parse it in this test";
  }
  EXPECT_GT(scenarios, 0);
  for (const char* shipped : {"quick-compare", "compare-backends", "nightly"}) {
    EXPECT_EQ(suites.count(shipped), 1u) << shipped;
  }
}

TEST(ShippedFilesTest, EveryScenarioLoadsValidatesAndWarnsAboutNothing) {
  for (const auto& file : ShippedJsonFiles()) {
    if (!IsScenario(file)) continue;
    RunConfig config;
    Status loaded = LoadRunConfigFile(file.string(), config);
    ASSERT_TRUE(loaded) << loaded.error();
    Status valid = ValidateRunConfig(config);
    EXPECT_TRUE(valid) << file << ": " << valid.error();
    EXPECT_TRUE(config.UnusedKeyWarnings().empty())
        << file << ": " << config.UnusedKeyWarnings().front();
    EXPECT_FALSE(config.description.empty()) << file << " says nothing about itself";
  }
}

// A run kept as a fixture is one `locksmith check` and `report` still read:
// its config loads and validates, its results parse.
TEST(ShippedFilesTest, EveryRunFixtureLoadsAsARunDirectory) {
  int fixtures = 0;
  for (const auto& file : ShippedJsonFiles()) {
    if (!IsRunFixture(file)) continue;
    ++fixtures;
    if (file.filename() == "results.json") {
      auto results = RunResults::Read(file.string());
      EXPECT_TRUE(results.ok()) << file << ": " << results.error();
      continue;
    }
    RunConfig config;
    Status loaded = LoadRunConfigFile(file.string(), config);
    ASSERT_TRUE(loaded) << file << ": " << loaded.error();
    Status valid = ValidateRunConfig(config);
    EXPECT_TRUE(valid) << file << ": " << valid.error();
  }
  EXPECT_GE(fixtures, 2);
}

TEST(ShippedFilesTest, TheLibraryListsEveryScenarioFile) {
  auto listed = ListScenarios();
  ASSERT_TRUE(listed.ok()) << listed.error();
  std::set<std::string> names;
  for (const auto& info : *listed) names.insert(info.name);
  for (const auto& entry : fs::directory_iterator(fs::path(LOCKSMITH_SOURCE_DIR) / "scenarios")) {
    if (!entry.is_regular_file()) continue;  // scenarios/debate/: the matrix's shape
    EXPECT_EQ(names.count(entry.path().stem().string()), 1u) << entry.path();
  }
}

TEST(ShippedFilesTest, TheDebateDataLoads) {
  const fs::path root(LOCKSMITH_SOURCE_DIR);
  auto shape = LoadDebateShape((root / "scenarios" / "debate" / "matrix.json").string());
  EXPECT_TRUE(shape.ok()) << shape.error();
  auto measured = ReadConfigJsonFile((root / "docs" / "debate.json").string());
  ASSERT_TRUE(measured.ok()) << measured.error();
  auto matrix = DebateMatrixFromJson(*measured);
  EXPECT_TRUE(matrix.ok()) << matrix.error();
}

TEST(ShippedFilesTest, EverySuiteLoadsAsItIsAndShortened) {
  SuiteOverrides shortened;
  shortened.time_scale = 0.1;
  shortened.test_count = 1;
  for (const auto& file : ShippedJsonFiles()) {
    if (!IsSuite(file)) continue;
    auto suite = LoadSuiteFile(file.string(), {});
    ASSERT_TRUE(suite.ok()) << suite.error();
    EXPECT_FALSE(suite->description.empty()) << file;
    auto short_suite = LoadSuiteFile(file.string(), shortened);
    ASSERT_TRUE(short_suite.ok()) << short_suite.error();
    ASSERT_EQ(short_suite->cells.size(), suite->cells.size()) << file;
    for (size_t i = 0; i < suite->cells.size(); ++i) {
      const RunConfig& full = suite->cells[i].config;
      const RunConfig& cut = short_suite->cells[i].config;
      const double scale = full.steps.is_null() ? 0.1 : 1;
      EXPECT_DOUBLE_EQ(cut.time_limit_s, full.time_limit_s * scale) << suite->cells[i].name;
      EXPECT_EQ(short_suite->cells[i].test_count, 1);
    }
  }
}

}  // namespace
}  // namespace locksmith
