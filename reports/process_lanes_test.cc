#include "reports/process_lanes.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

Op At(int64_t time, int64_t process, OpType type) {
  Op op;
  op.time = time, op.process = process, op.type = type, op.f = "acquire";
  return op;
}

TEST(ProcessLanesTest, TheNemesisFirstThenProcessesWhoseLivesDoNotOverlapShareALane) {
  const History h = {
      At(0, 0, OpType::kInvoke), At(5, 1, OpType::kInvoke), At(10, 0, OpType::kInfo),
      At(12, kNemesisProcess, OpType::kInvoke),
      // p3 continues p0's worker after its info; p1 never completes.
      At(20, 3, OpType::kInvoke), At(30, 3, OpType::kOk),
  };
  const ProcessLanes lanes = ProcessLanes::Build(h, 40);
  EXPECT_EQ(lanes.labels(), std::vector<std::string>({"nemesis", "p0 +1", "p1"}));
  EXPECT_EQ(lanes.first_process(), std::vector<int64_t>({kNemesisProcess, 0, 1}));
  EXPECT_EQ(lanes.LaneOf(kNemesisProcess), 0);
  EXPECT_EQ(lanes.LaneOf(3), 1);
  EXPECT_EQ(lanes.LaneOf(1), 2);
  std::string json;
  lanes.AppendJson(&json);
  const nlohmann::json data = nlohmann::json::parse("{" + json + "}");
  EXPECT_EQ(data["segments"]["process"], nlohmann::json({0, 3, 1}));
  EXPECT_EQ(data["segments"]["s"], nlohmann::json({0, 20, 5}));
}

// The service's events have a lane named for who reports them (what its
// declaration says), "service" when nothing says.
TEST(ProcessLanesTest, ServiceEventsHaveALaneOfTheirReportersName) {
  const History h = {At(0, kServiceProcess, OpType::kInfo)};
  EXPECT_EQ(ProcessLanes::Build(h, 0, "watchers").labels(), std::vector<std::string>({"watchers"}));
  EXPECT_EQ(ProcessLanes::Build(h, 0).labels(), std::vector<std::string>({"service"}));
}

}  // namespace
}  // namespace locksmith
