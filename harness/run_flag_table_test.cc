#include "harness/run_flag_table.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "backends/backend_registry.h"

namespace locksmith {
namespace {

std::vector<RunFlagRow> RowsOf(const std::vector<RunFlagRow>& rows, const std::string& flag) {
  std::vector<RunFlagRow> found;
  std::copy_if(rows.begin(), rows.end(), std::back_inserter(found),
               [&](const RunFlagRow& row) { return row.flag == flag; });
  return found;
}

TEST(RunFlagTableTest, OwnFlagsComeFirstWithTheirHelpLines) {
  const auto rows = RunFlagRows();
  ASSERT_GE(rows.size(), 4u);
  EXPECT_EQ(rows[0].flag, "--scenario");
  EXPECT_EQ(rows[3].flag, "--test-count");
  EXPECT_EQ(HelpLine(RunOwnFlag("--seed")),
            "seed for every random choice [default: random, logged]");
  EXPECT_EQ(HelpLine(RunOwnFlag("--scenario")), RunOwnFlag("--scenario").meaning);
  EXPECT_THROW(RunOwnFlag("--backend"), std::logic_error);
}

TEST(RunFlagTableTest, CommonOptionsShowTheirChoicesAndDefaults) {
  const auto rows = RunFlagRows();
  const auto backend = RowsOf(rows, "--backend");
  ASSERT_EQ(backend.size(), 1u);
  EXPECT_EQ(backend[0].owners, "common");
  EXPECT_EQ(backend[0].default_text, "redis");
  EXPECT_NE(backend[0].meaning.find("(" + JoinNames(BackendNames()) + ")"), std::string::npos)
      << backend[0].meaning;
  const auto loopback = RowsOf(rows, "--loopback");
  ASSERT_EQ(loopback.size(), 1u);
  EXPECT_EQ(loopback[0].default_text, "off");
}

TEST(RunFlagTableTest, ModulesDeclaringAFlagAlikeShareARowAndUnlikeGetOneEach) {
  const auto rows = RunFlagRows();
  const auto lease = RowsOf(rows, "--lease");
  ASSERT_EQ(lease.size(), 1u);
  EXPECT_EQ(lease[0].owners,
            "workload mutex, workload inventory, workload counter, workload rw-cache");
  EXPECT_EQ(lease[0].default_text, "1000");

  // Redlock words its persistence for its masters: a row of its own.
  const auto persistence = RowsOf(rows, "--redis-persistence");
  ASSERT_EQ(persistence.size(), 2u);
  EXPECT_EQ(persistence[0].owners, "backend redis, backend redis-sentinel");
  EXPECT_EQ(persistence[1].owners, "backend redlock");
  EXPECT_EQ(persistence[1].default_text, "none");

  const auto read_fraction = RowsOf(rows, "--read-fraction");
  ASSERT_EQ(read_fraction.size(), 2u);
  EXPECT_EQ(read_fraction[0].owners, "workload mutex");
  EXPECT_EQ(read_fraction[0].default_text, "0");
  EXPECT_EQ(read_fraction[1].owners, "workload rw-cache");
  EXPECT_EQ(read_fraction[1].default_text, "0.8");
  // Next to each other in the table.
  const auto first = std::find_if(rows.begin(), rows.end(), [](const RunFlagRow& row) {
    return row.flag == "--read-fraction";
  });
  ASSERT_NE(first + 1, rows.end());
  EXPECT_EQ((first + 1)->flag, "--read-fraction");
}

TEST(RunFlagTableTest, MarkdownEscapesWhatWouldBreakATable) {
  const std::string table = MarkdownFlagTable(
      {{"--shape", "nemesis partition", "a|b", "cut <hosts> | clients"}, {"--on", "common", "", "x"}});
  EXPECT_EQ(table,
            "| flag | module | default | meaning |\n"
            "|---|---|---|---|\n"
            "| `--shape` | nemesis partition | `a\\|b` | cut &lt;hosts&gt; \\| clients |\n"
            "| `--on` | common |  | x |\n");
}

}  // namespace
}  // namespace locksmith
