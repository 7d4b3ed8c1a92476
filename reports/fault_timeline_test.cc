#include "reports/fault_timeline.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

Op MakeOp(int64_t index, int64_t time, int64_t process, OpType type, std::string f,
          nlohmann::json value = nullptr, std::string error = "") {
  Op op;
  op.index = index, op.time = time, op.process = process, op.type = type;
  op.f = std::move(f), op.value = std::move(value), op.error = std::move(error);
  return op;
}

Op Mark(Op op, int64_t window, const std::string& family, bool begins) {
  op.fault = FaultMark{window, family, begins}.ToJson();
  return op;
}

// A family this code has never heard of: "trip" begins its window, "untrip"
// ends it; another family, "wobble", results.json does not describe.
History FakeFamilyHistory() {
  return {
      Mark(MakeOp(0, 100, kNemesisProcess, OpType::kInvoke, "trip"), 0, "test-family", true),
      Mark(MakeOp(1, 150, kNemesisProcess, OpType::kInfo, "trip", {{"process", 2}}), 0,
           "test-family", true),
      MakeOp(2, 200, 2, OpType::kOk, "lock-lost", nullptr, "gone"),
      Mark(MakeOp(3, 300, kNemesisProcess, OpType::kInvoke, "wobble"), 1, "wobble", true),
      Mark(MakeOp(4, 350, kNemesisProcess, OpType::kFail, "wobble",
                  {{"nodes", nlohmann::json::array()}}, "down"),
           1, "wobble", true),
      Mark(MakeOp(5, 400, kNemesisProcess, OpType::kInvoke, "untrip"), 0, "test-family", false),
      Mark(MakeOp(6, 450, kNemesisProcess, OpType::kInfo, "untrip"), 0, "test-family", false),
  };
}

FaultTimeline Build(const History& h, const nlohmann::json& results) {
  OpNameTables names;
  const auto rows = BuildOpRows(h, ProcessLanes::Build(h, 500), &names);
  return FaultTimeline::Build(h, rows, 500, DescribedFaults::FromResults(results),
                              DeclaredEvents::FromResults(results));
}

TEST(FaultTimelineTest, AFamilyIsDrawnFromItsDescriptionAlone) {
  const History h = FakeFamilyHistory();
  const FaultTimeline t = Build(h, nlohmann::json::parse(R"({"fault_descriptions": {
      "families": {"test-family": {"lane": "test lane", "order": 5, "color": "#123456",
                                   "client_mark": "span", "client_ops": []}},
      "windows": [{"index": 0, "text": "trip p2", "effective": true, "process": 2}]}})"));
  ASSERT_EQ(t.faults().size(), 3u);
  const FaultView& trip = t.faults()[0];
  EXPECT_EQ(trip.label, "trip p2");
  EXPECT_EQ(trip.process, 2);
  EXPECT_EQ(trip.start, 100);
  EXPECT_EQ(trip.end, 450);  // its end op's completion
  EXPECT_FALSE(trip.open);
  // Described families by order, then the events, then the undescribed.
  ASSERT_EQ(t.lanes().size(), 3u);
  EXPECT_EQ(t.lanes()[0].look.label, "test lane");
  EXPECT_EQ(t.lanes()[0].look.color, "#123456");
  EXPECT_EQ(t.lanes()[0].look.client_mark, "span");
  EXPECT_EQ(t.lanes()[1].family, "lock-lost");
  EXPECT_EQ(t.lanes()[2].family, "wobble");
  EXPECT_EQ(t.fault_lane(), std::vector<int32_t>({0, 2, 1}));
  EXPECT_EQ(t.LaneOf("test-family"), 0);
  EXPECT_EQ(t.LaneOf("none"), -1);
  std::string json;
  t.AppendJson(&json);
  const nlohmann::json data = nlohmann::json::parse("{" + json + "}");
  EXPECT_EQ(data["fault_lanes"][0],
            nlohmann::json({{"label", "test lane"}, {"color", "#123456"}, {"mark", "span"}}));
  EXPECT_EQ(data["faults"][0]["label"], "trip p2");
  EXPECT_EQ(data["faults"][0]["lane"], 0);
}

TEST(FaultTimelineTest, WithoutADescriptionANeutralLaneAndTheOpsName) {
  const FaultTimeline t = Build(FakeFamilyHistory(), nlohmann::json::object());
  ASSERT_EQ(t.lanes().size(), 3u);
  EXPECT_EQ(t.LaneOf("lock-lost"), 0);
  const LaneLook& look = t.lanes()[static_cast<size_t>(t.LaneOf("test-family"))].look;
  EXPECT_EQ(t.LaneOf("test-family"), 1);  // the undescribed by name, after the events
  EXPECT_EQ(look.label, "test-family");
  EXPECT_EQ(look.color, "#555");
  EXPECT_EQ(look.client_mark, "");
  EXPECT_EQ(t.faults()[0].label, "trip");
  EXPECT_EQ(t.faults()[0].process, -1);
  // A failed op that lists no node did nothing, described or not.
  EXPECT_EQ(t.faults()[1].label, "wobble");
  EXPECT_FALSE(t.faults()[1].effective);
  EXPECT_TRUE(t.faults()[1].open);  // never healed: to the end of the run
  EXPECT_EQ(t.faults()[1].end, 500);
  EXPECT_EQ(t.faults()[2].label, "p2 lost : gone");
  EXPECT_TRUE(t.faults()[2].point);
}

// The service's events the run's results.json declares new leaders are
// promotions (one told twice is one); other kinds, and any kind results.json
// does not declare, are not.
TEST(FaultTimelineTest, AServiceEventIsAPromotionWhenItsKindIsDeclaredOne) {
  const History h = {
      MakeOp(0, 100, kServiceProcess, OpType::kInfo, "elected", {{"from", "a"}, {"to", "b"}}),
      MakeOp(1, 150, kServiceProcess, OpType::kInfo, "elected", {{"from", "a"}, {"to", "b"}}),
      MakeOp(2, 200, kServiceProcess, OpType::kInfo, "node-down", {{"node", "a"}}),
  };
  const FaultTimeline t = Build(h, nlohmann::json::parse(R"({"service_events": {
      "source": "tellers", "kinds": [{"name": "elected", "meaning": "m", "new_leader": true},
                                     {"name": "node-down", "meaning": "m", "new_leader": false}]}})"));
  ASSERT_EQ(t.faults().size(), 1u);
  EXPECT_EQ(t.faults()[0].label, "promotion a \xE2\x86\x92 b");
  EXPECT_EQ(t.faults()[0].start, 100);
  ASSERT_EQ(t.lanes().size(), 1u);
  EXPECT_EQ(t.lanes()[0].family, "promotion");
  EXPECT_TRUE(Build(h, nlohmann::json::object()).faults().empty());
}

}  // namespace
}  // namespace locksmith
