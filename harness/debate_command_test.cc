// `locksmith debate` without servers: docs/debate.md's generated tables are
// those of the committed docs/debate.json; the shipped shape places every
// library scenario in a column and no cannot-run cell hides a scenario; the
// library is one suite (K repeats, time scale passed through, --only); and a
// suite directory written by hand (summary, run configs and results, as a
// debate leaves them) becomes its matrix with `--from`, each invalid run
// with its report and the command that replays it.
#include "harness/debate_command.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/testing/file_text.h"
#include "base/testing/temp_dir.h"
#include "harness/run_config.h"
#include "harness/scenario_library.h"
#include "reports/debate_doc.h"

namespace locksmith {
namespace {

namespace fs = std::filesystem;

const std::string kSource = LOCKSMITH_SOURCE_DIR;

TEST(DebateCommandTest, DocsDebateMdShowsTheCommittedDebateJson) {
  const std::string doc = testing::FileText(kSource + "/docs/debate.md");
  auto block = DebateDocBlock(doc);
  ASSERT_TRUE(block.ok()) << block.error();
  auto j = nlohmann::json::parse(testing::FileText(kSource + "/docs/debate.json"));
  auto matrix = DebateMatrixFromJson(j);
  ASSERT_TRUE(matrix.ok()) << matrix.error();
  EXPECT_EQ(*block, DebateDocTables(*matrix))
      << "docs/debate.md's tables are not docs/debate.json's: run "
         "locksmith debate --doc docs/debate.json --patch docs/debate.md";
}

TEST(DebateCommandTest, TheShapePlacesEveryScenarioAndHidesNone) {
  auto shape = LoadDebateShape(DebateShapeFile());
  ASSERT_TRUE(shape.ok()) << shape.error();
  auto library = ListScenarios();
  ASSERT_TRUE(library.ok()) << library.error();
  SuiteRecord record;
  for (const auto& s : *library) record.cells.push_back(s.name);
  record.planned_runs = static_cast<int>(record.cells.size());
  testing::TempDir dir;
  auto matrix = DebateMatrixOfSuite(record, dir.path(), *shape, "test");
  ASSERT_TRUE(matrix.ok()) << matrix.error();
  ASSERT_EQ(matrix->entries.size(), library->size());
  for (const auto& e : matrix->entries) {
    EXPECT_NE(e.column, "?") << e.scenario << " fits no column of " << DebateShapeFile();
    EXPECT_EQ(e.runs, 0);
    EXPECT_EQ(e.agreement, e.predicted_verdict.empty() ? "no prediction" : "undecided");
    for (const auto& c : shape->cannot_run) {
      EXPECT_FALSE(e.row == c.row && e.column == c.column)
          << e.scenario << " runs a cell the shape says cannot run";
    }
  }
}

TEST(DebateCommandTest, TheLibraryIsOneSuiteOfKRepeats) {
  DebateOptions options;
  options.repeats = 3;
  options.time_scale = 0.5;
  options.seed = 9;
  auto suite = DebateSuite(options);
  ASSERT_TRUE(suite.ok()) << suite.error();
  auto library = ListScenarios();
  ASSERT_TRUE(library.ok());
  ASSERT_EQ(suite->cells.size(), library->size());
  EXPECT_EQ(suite->name, "debate");
  EXPECT_EQ(*suite->seed, 9u);
  for (const auto& cell : suite->cells) {
    EXPECT_EQ(cell.test_count, 3);
    EXPECT_EQ(cell.scenario, cell.name);
    RunConfig file;
    ASSERT_TRUE(LoadRunConfigFile(*ScenarioPath(cell.name), file).ok());
    // Scripted scenarios keep their timing; the others are scaled.
    EXPECT_EQ(cell.config.time_limit_s,
              file.steps.is_null() ? file.time_limit_s * 0.5 : file.time_limit_s)
        << cell.name;
  }
  options.only = {"redis-kill-no-persistence", "redlock-no-faults"};
  auto only = DebateSuite(options);
  ASSERT_TRUE(only.ok()) << only.error();
  ASSERT_EQ(only->cells.size(), 2u);
  EXPECT_NE(only->digest, suite->digest);
  options.only = {"no-such-scenario"};
  auto unknown = DebateSuite(options);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().find("--only: unknown scenario \"no-such-scenario\""),
            std::string::npos)
      << unknown.error();
}

// A run directory as a run leaves it: its config (the scenario's file with
// the run's seed and time limit) and results.
void WriteRun(const fs::path& dir, const std::string& scenario, uint64_t seed, double limit,
              bool invalid) {
  fs::create_directories(dir);
  nlohmann::json config = nlohmann::json::parse(testing::FileText(*ScenarioPath(scenario)));
  config["seed"] = seed;
  config["time_limit_s"] = limit;
  std::ofstream(dir / "config.json") << config.dump();
  nlohmann::json results = {{"valid", !invalid}, {"anomalies", nlohmann::json::array()}};
  if (invalid) {
    results["anomalies"].push_back({{"type", "double-holder"}, {"class", "unsafe-grant"}});
  }
  std::ofstream(dir / "results.json") << results.dump();
  std::ofstream(dir / "report.html") << "<html></html>";
}

TEST(DebateCommandTest, ASuiteDirectoryBecomesItsMatrix) {
  testing::TempDir dir;
  SuiteRecord record;
  record.name = "debate";
  record.description = "The debate matrix (locksmith debate): every scenario of the library, 2 "
                       "runs each at time scale 0.5.";
  record.seed = 5;
  record.cells = {"redis-kill-no-persistence", "redis-kill-fsync-always"};
  record.planned_runs = 4;
  int n = 0;
  for (const auto& [cell, verdicts] :
       {std::pair{"redis-kill-no-persistence", std::pair{true, false}},
        std::pair{"redis-kill-fsync-always", std::pair{false, false}}}) {
    for (int repeat = 0; repeat < 2; ++repeat) {
      const bool invalid = repeat == 0 ? verdicts.first : verdicts.second;
      SuiteRun run;
      run.cell = cell;
      run.repeat = repeat;
      run.seed = 40 + n;
      run.dir = cell + std::string("/run-") + std::to_string(repeat);
      run.verdict = invalid ? "invalid" : "valid";
      run.exit_code = invalid ? 1 : 0;
      if (invalid) run.first_violation_s = 3.5;
      WriteRun(fs::path(dir.path()) / run.dir, cell, run.seed, 7.5, invalid);
      record.runs.push_back(run);
      ++n;
    }
  }
  ASSERT_TRUE(WriteSuiteReports(record, dir.path()).ok());
  std::ostringstream out, err;
  EXPECT_EQ(RunDebateFrom(dir.path(), "", out, err), 0) << err.str();
  auto j = nlohmann::json::parse(testing::FileText(dir.path() + "/debate.json"));
  auto matrix = DebateMatrixFromJson(j);
  ASSERT_TRUE(matrix.ok()) << matrix.error();
  EXPECT_EQ(matrix->repeats, 2);
  EXPECT_EQ(matrix->time_scale, 0.5);
  ASSERT_EQ(matrix->entries.size(), 2u);
  const DebateEntry& y = matrix->entries[1].scenario == "redis-kill-no-persistence"
                             ? matrix->entries[1]
                             : matrix->entries[0];
  EXPECT_EQ(y.row, "6");
  EXPECT_EQ(y.column, "SR");
  EXPECT_EQ(y.invalid, 1);
  EXPECT_EQ(y.judged, 2);
  EXPECT_EQ(y.agreement, "agrees");
  EXPECT_EQ(y.run_length_s, 7.5);
  ASSERT_EQ(y.invalid_runs.size(), 1u);
  EXPECT_EQ(y.invalid_runs[0].report, "redis-kill-no-persistence/run-0/report.html");
  EXPECT_EQ(y.invalid_runs[0].replay,
            "locksmith run --scenario redis-kill-no-persistence --seed 40 --time-limit 7.5");
  EXPECT_NE(testing::FileText(dir.path() + "/debate.html").find("redis-kill-no-persistence/run-0"),
            std::string::npos);
  EXPECT_NE(out.str().find("6 SR redis-kill-no-persistence: predicted Y, 1 of 2 invalid"),
            std::string::npos)
      << out.str();

  std::ostringstream no_out, no_err;
  EXPECT_EQ(RunDebateFrom(dir.path() + "/nothing", "", no_out, no_err), 254);
  EXPECT_NE(no_err.str().find("--from: "), std::string::npos);
}

}  // namespace
}  // namespace locksmith
