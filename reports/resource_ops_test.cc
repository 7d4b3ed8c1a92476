#include "reports/resource_ops.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

Op MakeOp(int64_t index, int64_t time, OpType type, std::string f, nlohmann::json value) {
  Op op;
  op.index = index, op.time = time, op.process = 0, op.type = type, op.key = "item";
  op.f = std::move(f), op.value = std::move(value);
  return op;
}

TEST(ResourceOpsTest, ReadsAtTheirCompletionWritesWithWhatTheyWrote) {
  const History h = {
      MakeOp(0, 10, OpType::kInvoke, "init", {{"value", 10}}),
      MakeOp(1, 11, OpType::kOk, "init", nullptr),
      MakeOp(2, 20, OpType::kInvoke, "read", nullptr),
      MakeOp(3, 25, OpType::kOk, "read", {{"value", 10}}),
      MakeOp(4, 30, OpType::kInvoke, "write", {{"value", 9}}),  // never completed
      MakeOp(5, 40, OpType::kInvoke, "acquire", {{"value", 1}}),  // not the resource's
  };
  OpNameTables names;
  const auto rows = BuildOpRows(h, ProcessLanes::Build(h, 40), &names);
  std::string json;
  const ResourceOps res = ResourceOps::Build(h, rows, &names.keys);
  EXPECT_EQ(res.size(), 3u);
  res.AppendJson(&json);
  const nlohmann::json data = nlohmann::json::parse("{" + json + "}")["res"];
  EXPECT_EQ(data["t"], nlohmann::json({11, 14, 5}));  // deltas of 11, 25, 30
  EXPECT_EQ(data["v"], nlohmann::json({10, 10, 9}));
  EXPECT_EQ(data["kind"], nlohmann::json({ResourceOps::kInit, ResourceOps::kRead,
                                          ResourceOps::kWrite}));
  EXPECT_EQ(data["o"], nlohmann::json({0, 0, 3}));
}

}  // namespace
}  // namespace locksmith
