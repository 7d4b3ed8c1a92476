#include "reports/report_model.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "checker/checker.h"
#include "reports/run_summary.h"

namespace locksmith {
namespace {

Op MakeOp(int64_t index, int64_t time, int64_t process, OpType type, std::string f,
          std::string key = "", nlohmann::json value = nullptr, std::string error = "") {
  Op op;
  op.index = index, op.time = time, op.process = process, op.type = type;
  op.f = std::move(f), op.key = std::move(key), op.value = std::move(value);
  op.error = std::move(error);
  return op;
}

Op Mark(Op op, int64_t window, const std::string& family, bool begins) {
  op.fault = FaultMark{window, family, begins}.ToJson();
  return op;
}

constexpr int64_t kS = 1'000'000'000;

TEST(FormatTest, Seconds) { EXPECT_EQ(FormatSeconds(5'325'340'042), "5.325 s"); }

// p0 holds lock-0 from 1 s, is paused by the client-pause nemesis at 1.5 s
// for 2 s (its lease is 1 s); p1 acquires lock-0 at 2.6 s. A kill of n1
// came and went before; the service (a fake one, its reporters "watchers")
// elected n3 its leader at 3 s, told by two of its watchers; p2 lost its lock.
History PausedHolderHistory() {
  return {
      Mark(MakeOp(0, 100'000'000, kNemesisProcess, OpType::kInvoke, "kill"), 0, "kill", true),
      Mark(MakeOp(1, 110'000'000, kNemesisProcess, OpType::kInfo, "kill", "", {{"nodes", {"n1"}}}),
           0, "kill", true),
      Mark(MakeOp(2, 200'000'000, kNemesisProcess, OpType::kInvoke, "restart"), 0, "kill", false),
      Mark(MakeOp(3, 300'000'000, kNemesisProcess, OpType::kInfo, "restart"), 0, "kill", false),
      MakeOp(4, 900'000'000, 0, OpType::kInvoke, "acquire", "lock-0"),
      MakeOp(5, 1 * kS, 0, OpType::kOk, "acquire", "lock-0", {{"validity_ms", 1000}}),
      Mark(MakeOp(6, 1'400'000'000, kNemesisProcess, OpType::kInvoke, "client-pause", "",
                  {{"ms", 2000}}),
           1, "client-pause", true),
      Mark(MakeOp(7, 1'500'000'000, kNemesisProcess, OpType::kInfo, "client-pause", "",
                  {{"ms", 2000}, {"process", 0}, {"key", "lock-0"}}),
           1, "client-pause", true),
      MakeOp(8, 2'500'000'000, 1, OpType::kInvoke, "acquire", "lock-0"),
      MakeOp(9, 2'600'000'000, 1, OpType::kOk, "acquire", "lock-0", {{"validity_ms", 1000}}),
      MakeOp(10, 3 * kS, kServiceProcess, OpType::kInfo, "leader-elected", "",
             {{"from", "n1"}, {"to", "n3"}, {"watcher", "w1"}}),
      MakeOp(11, 3'000'100'000, kServiceProcess, OpType::kInfo, "leader-elected", "",
             {{"from", "n1"}, {"to", "n3"}, {"watcher", "w2"}}),
      MakeOp(12, 3'200'000'000, 1, OpType::kInvoke, "release", "lock-0"),
      MakeOp(13, 3'300'000'000, 1, OpType::kOk, "release", "lock-0"),
      MakeOp(14, 3'400'000'000, 2, OpType::kOk, "lock-lost", "lock-1", nullptr,
             "the session expired"),
      Mark(MakeOp(15, 3'500'000'000, kNemesisProcess, OpType::kInvoke, "clock-bump", "",
                  {{"delta_ms", 10000}}),
           2, "clock", true),
      Mark(MakeOp(16, 3'600'000'000, kNemesisProcess, OpType::kInfo, "clock-bump", "",
                  {{"clocks", {{"n3", {{"observed_offset_ms", 10002.5}}}}}}),
           2, "clock", true),
      MakeOp(17, 3'700'000'000, 0, OpType::kInvoke, "release", "lock-0"),
      MakeOp(18, 3'800'000'000, 0, OpType::kOk, "release", "lock-0"),
      Mark(MakeOp(19, 3'900'000'000, kNemesisProcess, OpType::kInvoke, "client-resume"), 1,
           "client-pause", false),
      Mark(MakeOp(20, 3'950'000'000, kNemesisProcess, OpType::kInfo, "client-resume"), 1,
           "client-pause", false),
      Mark(MakeOp(21, 4 * kS, kNemesisProcess, OpType::kInvoke, "clock-reset"), 2, "clock", false),
      Mark(MakeOp(22, 4'100'000'000, kNemesisProcess, OpType::kInfo, "clock-reset", "",
                  {{"clocks", {{"n3", {{"observed_offset_ms", 0.2}}}}}}),
           2, "clock", false),
  };
}

// What the run writes into results.json about PausedHolderHistory's faults
// (nemesis/fault_descriptions.h).
nlohmann::json PausedHolderResults() {
  return nlohmann::json::parse(R"({"fault_descriptions": {
      "families": {
        "kill": {"lane": "kill", "order": 10, "color": "#c62828", "client_mark": "",
                 "client_ops": []},
        "clock": {"lane": "clock", "order": 40, "color": "#00838f", "client_mark": "",
                  "client_ops": []},
        "client-pause": {"lane": "client-pause", "order": 50, "color": "#7b4fc9",
                         "client_mark": "span", "client_ops": ["pause"]}},
      "windows": [
        {"index": 0, "window": 0, "family": "kill", "text": "kill n1", "effective": true,
         "process": -1},
        {"index": 6, "window": 1, "family": "client-pause",
         "text": "client-pause p0 holding lock-0 for 2.000 s", "effective": true, "process": 0},
        {"index": 15, "window": 2, "family": "clock", "text": "clock-bump n3 +10 s",
         "effective": true, "process": -1}]},
      "service_events": {"source": "watchers", "reporter_field": "watcher", "kinds": [
        {"name": "leader-elected", "meaning": "the watchers saw a new leader", "new_leader": true},
        {"name": "node-down", "meaning": "a watcher lost a node", "new_leader": false}]}})");
}

std::vector<std::string> LaneLabels(const ReportModel& m) {
  std::vector<std::string> labels;
  for (const FaultLane& lane : m.fault_lanes()) labels.push_back(lane.look.label);
  return labels;
}

TEST(ReportModelTest, FaultsGetFamilyLanesLabelsAndEvents) {
  const History h = PausedHolderHistory();
  const ReportModel m = ReportModel::Build(h, PausedHolderResults());
  EXPECT_EQ(LaneLabels(m), std::vector<std::string>({"kill", "clock", "client-pause",
                                                     "promotion", "lock-lost"}));
  ASSERT_EQ(m.faults().size(), 5u);
  EXPECT_EQ(m.faults()[0].label, "kill n1");
  EXPECT_EQ(m.faults()[0].end, 300'000'000);
  EXPECT_EQ(m.faults()[1].label, "client-pause p0 holding lock-0 for 2.000 s");
  EXPECT_EQ(m.faults()[1].process, 0);
  EXPECT_EQ(m.faults()[2].label, "clock-bump n3 +10 s");
  // The same promotion told by two of the service's reporters is one event.
  EXPECT_TRUE(m.faults()[3].point);
  EXPECT_EQ(m.faults()[3].f, "leader-elected");
  EXPECT_EQ(m.faults()[3].label, "promotion n1 \xE2\x86\x92 n3, seen by w1 w2");
  EXPECT_EQ(m.faults()[4].label, "p2 lost lock-1: the session expired");
  EXPECT_EQ(m.faults()[4].process, 2);
  // The service's events run in a lane named for their reporters.
  std::string json;
  m.AppendJson(&json);
  const nlohmann::json lanes = nlohmann::json::parse(json)["lanes"];
  EXPECT_NE(std::find(lanes.begin(), lanes.end(), "watchers"), lanes.end()) << lanes;
  ASSERT_EQ(m.clocks().size(), 1u);
  EXPECT_EQ(m.clocks()[0].node, "n3");
  EXPECT_EQ(m.clocks()[0].time, std::vector<int64_t>({0, 3'600'000'000, 4'100'000'000}));
  EXPECT_EQ(m.clocks()[0].offset_ms, std::vector<double>({0, 10002.5, 0.2}));
}

TEST(ReportModelTest, WithoutDescriptionsFaultsGetNeutralLanesAndTheirOpsNames) {
  const History h = PausedHolderHistory();
  const ReportModel m = ReportModel::Build(h, nlohmann::json::object());
  // The event lanes (the report's own), then the families by name; no
  // service event is a promotion unless the service declares it one.
  EXPECT_EQ(LaneLabels(m),
            std::vector<std::string>({"lock-lost", "client-pause", "clock", "kill"}));
  EXPECT_EQ(m.fault_lanes()[3].look.color, "#555");
  EXPECT_EQ(m.faults()[0].label, "kill");
  EXPECT_EQ(m.faults()[1].label, "client-pause");
  EXPECT_EQ(m.faults()[1].process, -1);  // who it hit is the description's to say
}

TEST(ReportModelTest, TheDataNamesTheClockLaneAndTheFaultsClientOps) {
  const History h = PausedHolderHistory();
  std::string json;
  ReportModel::Build(h, PausedHolderResults()).AppendJson(&json);
  const nlohmann::json data = nlohmann::json::parse(json);
  EXPECT_EQ(data["clock_lane"], 1);  // the clock ops observed the offsets
  EXPECT_EQ(data["fault_fs"], nlohmann::json({"pause"}));
  EXPECT_EQ(data["fault_lanes"][2],
            nlohmann::json({{"label", "client-pause"}, {"color", "#7b4fc9"}, {"mark", "span"}}));
  json.clear();
  ReportModel::Build(h, nlohmann::json::object()).AppendJson(&json);
  EXPECT_EQ(nlohmann::json::parse(json)["clock_lane"], 2);  // found by its ops, undescribed
}

TEST(ReportModelTest, ADoubleHolderStoryFromTheModelsHolds) {
  const History h = PausedHolderHistory();
  const ReportModel m = ReportModel::Build(h, PausedHolderResults());
  // Only the acquires named: the holds come from the history.
  const nlohmann::json anomaly = {
      {"type", "double-holder"},
      {"key", "lock-0"},
      {"holders", {{{"process", 1}, {"acquire", OpRef(h[9])}, {"release", OpRef(h[12])}},
                   {{"process", 0}, {"acquire", OpRef(h[5])}, {"release", OpRef(h[17])}}}}};
  const AnomalyStory st = m.StoryOf(anomaly);
  ASSERT_EQ(st.holds.size(), 2u);
  EXPECT_EQ(st.holds[0].process, 0);  // by start
  EXPECT_EQ(st.holds[0].start, 1 * kS);
  EXPECT_EQ(st.holds[0].end, 3'700'000'000);
  EXPECT_EQ(st.holds[0].lease_end, 2 * kS);
  EXPECT_EQ(st.holds[1].start, 2'600'000'000);
  EXPECT_EQ(st.overlap_start, 2'600'000'000);
  EXPECT_EQ(st.overlap_end, 3'200'000'000);
  EXPECT_EQ(st.at, 2'600'000'000);
  // The pause of holder p0 explains it, not the kill that was over.
  EXPECT_EQ(st.cause.fault, 1);
  EXPECT_TRUE(st.cause.active);
  EXPECT_EQ(st.cause.gap_ns, 1'200'000'000);
  EXPECT_EQ(st.active, std::vector<int64_t>({1}));
}

TEST(ReportModelTest, TheCheckersHolderFieldsAndOverlapWin) {
  const History h = PausedHolderHistory();
  const ReportModel m = ReportModel::Build(h, nlohmann::json::object());
  const nlohmann::json anomaly = {
      {"type", "double-holder"},
      {"holders", {{{"process", 3}, {"start", 10}, {"end", 50}, {"lease_end", 30}},
                   {{"process", 4}, {"start", 20}, {"end", 60}}}},
      {"overlap_ns", {20, nullptr}}};
  const AnomalyStory st = m.StoryOf(anomaly);
  ASSERT_EQ(st.holds.size(), 2u);
  EXPECT_EQ(st.holds[0].lease_end, 30);
  EXPECT_EQ(st.holds[1].lease_end, -1);
  EXPECT_EQ(st.overlap_start, 20);
  EXPECT_EQ(st.overlap_end, m.end_time());  // still overlapping at the end
  EXPECT_EQ(st.cause.fault, -1);            // nothing had happened at 20 ns
}

TEST(ReportModelTest, AResourceStoryHasTheBuyersReadsAndWrites) {
  History h = {
      MakeOp(0, 10, 0, OpType::kInvoke, "acquire", "item-0"),
      MakeOp(1, 20, 0, OpType::kOk, "acquire", "item-0"),
      MakeOp(2, 30, 0, OpType::kInvoke, "read", "item-0"),
      MakeOp(3, 40, 0, OpType::kOk, "read", "item-0", {{"value", 7}}),
      MakeOp(4, 50, 1, OpType::kInvoke, "acquire", "item-0"),
      MakeOp(5, 60, 1, OpType::kOk, "acquire", "item-0"),
      MakeOp(6, 70, 1, OpType::kInvoke, "read", "item-0"),
      MakeOp(7, 80, 1, OpType::kOk, "read", "item-0", {{"value", 7}}),
      MakeOp(8, 90, 1, OpType::kInvoke, "write", "item-0", {{"value", 6}}),
      MakeOp(9, 100, 1, OpType::kOk, "write", "item-0"),
      MakeOp(10, 110, 1, OpType::kInvoke, "release", "item-0"),
      MakeOp(11, 120, 0, OpType::kInvoke, "write", "item-0", {{"value", 6}}),
      MakeOp(12, 130, 0, OpType::kOk, "write", "item-0"),
      MakeOp(13, 140, 0, OpType::kInvoke, "release", "item-0"),
  };
  const ReportModel m = ReportModel::Build(h, nlohmann::json::object());
  EXPECT_EQ(m.resource_op_count(), 4u);
  auto buyer = [&](int64_t p, size_t hold, size_t read, size_t write) {
    return nlohmann::json{{"process", p},          {"hold", OpRef(h[hold])},
                          {"read", OpRef(h[read])}, {"read_value", 7},
                          {"write", OpRef(h[write])}, {"wrote", 6}};
  };
  const nlohmann::json anomaly = {
      {"type", "lost-update"},
      {"key", "item-0"},
      {"overlapping", {{{"buyers", {buyer(1, 5, 7, 8), buyer(0, 1, 3, 11)}}}}}};
  const AnomalyStory st = m.StoryOf(anomaly);
  ASSERT_EQ(st.holds.size(), 2u);
  EXPECT_EQ(st.holds[0].process, 0);
  EXPECT_EQ(st.holds[0].start, 20);
  EXPECT_EQ(st.holds[0].end, 140);
  ASSERT_EQ(st.holds[0].marks.size(), 2u);
  EXPECT_EQ(st.holds[0].marks[0].label, "read 7");
  EXPECT_EQ(st.holds[0].marks[1].time, 120);
  EXPECT_EQ(st.holds[0].marks[1].label, "wrote 6");
  EXPECT_EQ(st.overlap_start, 60);
  EXPECT_EQ(st.overlap_end, 110);
}

TEST(ReportModelTest, AStuckLockStartsWhenTheRefusalsDo) {
  const History h = PausedHolderHistory();
  const ReportModel m = ReportModel::Build(h, PausedHolderResults());
  const nlohmann::json anomaly = {{"type", "stuck-lock"},
                                  {"key", "lock-0"},
                                  {"window", {{"from_ms", 1600}, {"to_ms", 3000}}},
                                  {"ops", {OpRef(h[5])}}};
  const AnomalyStory st = m.StoryOf(anomaly);
  EXPECT_EQ(st.at, 1'600'000'000);
  EXPECT_EQ(st.cause.fault, 1);  // the client pause in force
  // Without the window: its earliest op.
  EXPECT_EQ(m.StoryOf({{"type", "x"}, {"ops", {OpRef(h[5])}}}).at, 1 * kS);
  EXPECT_EQ(m.StoryOf({{"type", "x"}}).at, -1);
}

}  // namespace
}  // namespace locksmith
