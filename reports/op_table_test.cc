#include "reports/op_table.h"

#include <gtest/gtest.h>

#include "reports/packed_table.h"

namespace locksmith {
namespace {

Op MakeOp(int64_t index, int64_t time, int64_t process, OpType type, std::string f,
          nlohmann::json value = nullptr, std::string error = "") {
  Op op;
  op.index = index, op.time = time, op.process = process, op.type = type;
  op.f = std::move(f), op.value = std::move(value), op.error = std::move(error);
  return op;
}

const History kHistory = {
    MakeOp(0, 10, 0, OpType::kInvoke, "acquire"),
    MakeOp(1, 12, 1, OpType::kInvoke, "acquire"),
    MakeOp(2, 15, 1, OpType::kFail, "acquire", {{"why", "held"}}, "busy"),
    MakeOp(3, 20, 0, OpType::kOk, "acquire", {{"token", "t"}}),
    MakeOp(4, 25, 2, OpType::kInfo, "read", {{"value", 3}}),  // no invoke
};

TEST(OpRowsTest, AnInvokeWithItsCompletionOrALoneCompletion) {
  OpNameTables names;
  const auto rows = BuildOpRows(kHistory, ProcessLanes::Build(kHistory, 25), &names);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].index, 0);
  EXPECT_EQ(rows[0].completion_index, 3);
  EXPECT_EQ(rows[0].duration, 10);
  EXPECT_EQ(rows[0].outcome, OpOutcome::kOk);
  EXPECT_EQ(rows[1].error, 0);
  EXPECT_EQ(rows[2].duration, 0);
  EXPECT_EQ(rows[2].outcome, OpOutcome::kInfo);
  EXPECT_EQ(CompletionOf(kHistory, rows[2]), nullptr);
  EXPECT_EQ(ValueOf(kHistory, rows[1]), nlohmann::json({{"why", "held"}}));
  EXPECT_EQ(names.fs.Take(), std::vector<std::string>({"acquire", "read"}));
}

nlohmann::json TableJson(const std::set<int64_t>& anomaly_ops, size_t max_values) {
  OpNameTables names;
  const auto rows = BuildOpRows(kHistory, ProcessLanes::Build(kHistory, 25), &names);
  std::string json;
  OpTable::Build(kHistory, rows, anomaly_ops, max_values).AppendJson(&json);
  return nlohmann::json::parse("{" + json + "}");
}

TEST(OpTableTest, RowsAsPackedTablesAndValuesWithinTheBudget) {
  const nlohmann::json all = TableJson({}, 100);
  EXPECT_EQ(all["ops"]["n"], 3);
  EXPECT_EQ(all["ops"]["t0"], 10);
  auto rows = UnpackTable(all["ops"]["rows"].get<std::string>(), {false, false, false, false});
  ASSERT_TRUE(rows.has_value());
  EXPECT_EQ((*rows)[0], std::vector<int64_t>({0, 2, 13}));   // starts as deltas
  EXPECT_EQ((*rows)[1], std::vector<int64_t>({11, 4, 1}));   // durations + 1
  EXPECT_EQ(all["values"]["rows"], nlohmann::json({0, 1, 2}));
  EXPECT_EQ(all["values"]["truncated"], false);
  // Over budget: only what an anomaly names keeps its value.
  const nlohmann::json some = TableJson({2}, 1);
  EXPECT_EQ(some["values"]["rows"], nlohmann::json({1}));
  EXPECT_EQ(some["values"]["text"], nlohmann::json({"{\"why\":\"held\"}"}));
  EXPECT_EQ(some["values"]["truncated"], true);
}

}  // namespace
}  // namespace locksmith
