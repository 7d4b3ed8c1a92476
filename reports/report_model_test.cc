#include "reports/report_model.h"

#include <gtest/gtest.h>

#include "checker/checker.h"

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

TEST(DescribePartitionTest, IslandsOfNodesThenClientsByWhatTheyLost) {
  // An isolated node with every client but one, as the partition nemesis
  // records a ZooKeeper "isolate one" grudge.
  nlohmann::json grudge = nlohmann::json::object();
  std::vector<std::string> all_clients_but_c6;
  for (int c = 0; c < 10; ++c) {
    const std::string name = "c" + std::to_string(c);
    if (c == 6) continue;
    grudge[name] = {"n3"};
    all_clients_but_c6.push_back(name);
  }
  grudge["c6"] = {"n1", "n2"};
  grudge["n1"] = {"c6", "n3"};
  grudge["n2"] = {"c6", "n3"};
  nlohmann::json n3 = all_clients_but_c6;
  n3.push_back("n1"), n3.push_back("n2");
  grudge["n3"] = n3;
  EXPECT_EQ(DescribePartition(grudge),
            "n1 n2 | n3; c6 cut from n1 n2; c0\xE2\x80\x93" "c5 c7\xE2\x80\x93" "c9 cut from n3");
}

TEST(DescribePartitionTest, OneClientCutFromOneNode) {
  EXPECT_EQ(DescribePartition({{"c5", {"n1"}}, {"n1", {"c5"}}}), "c5 cut from n1");
  EXPECT_EQ(DescribePartition(nlohmann::json::object()), "no cuts");
  EXPECT_EQ(DescribePartition(nullptr), "no cuts");
}

TEST(DescribePartitionTest, OneWayCutsSayWhoDrops) {
  EXPECT_EQ(DescribePartition({{"n1", {"n2", "n3"}}}), "one-way: n1 drops n2 n3");
}

TEST(DescribeFaultTest, NamesWhatEachFamilyHit) {
  EXPECT_EQ(DescribeFault("kill", "kill", {{"nodes", {"n1"}}, {"target", "one"}}, ""), "kill n1");
  EXPECT_EQ(DescribeFault("pause", "pause", {{"nodes", nlohmann::json::array()}}, "n1 is down"),
            "pause (no node) \xE2\x80\x94 n1 is down");
  EXPECT_EQ(DescribeFault("clock-bump", "clock",
                          {{"clocks", {{"n3", {{"observed_offset_ms", 10002.9},
                                               {"offset_ms", 10000.0}}}}},
                           {"delta_ms", 10000}},
                          ""),
            "clock-bump n3 +10 s");
  EXPECT_EQ(DescribeFault("clock-strobe", "clock",
                          {{"clocks", {{"n1", {{"observed_offset_ms", 60005.2}}},
                                       {"n2", {{"observed_offset_ms", 60000.1}}}}},
                           {"delta_ms", 60000},
                           {"period_ms", 1000}},
                          ""),
            "clock-strobe n1 n2 +60 s (\xC2\xB1" "60 s every 1.000 s)");
  EXPECT_EQ(DescribeFault("client-pause", "client-pause",
                          {{"key", "lock-2"}, {"ms", 2000}, {"process", 1}}, ""),
            "client-pause p1 holding lock-2 for 2.000 s");
  EXPECT_EQ(DescribeFault("failover", "failover",
                          {{"mode", "kill"}, {"new", "n3"}, {"old", "n1"},
                           {"promoted_after_ms", 2408}},
                          ""),
            "failover n1 \xE2\x86\x92 n3, promoted after 2.408 s (kill)");
  EXPECT_EQ(DescribeFault("partition", "partition",
                          {{"grudge", {{"c5", {"n1"}}, {"n1", {"c5"}}}}, {"shape", "auto"}}, ""),
            "partition: c5 cut from n1");
}

TEST(FormatTest, OffsetsAndSeconds) {
  EXPECT_EQ(FormatOffsetMs(60005.861), "+60 s");
  EXPECT_EQ(FormatOffsetMs(-250), "-250 ms");
  EXPECT_EQ(FormatOffsetMs(0.176), "+0.18 ms");
  EXPECT_EQ(FormatSeconds(5'325'340'042), "5.325 s");
}

FaultView Window(const std::string& family, int64_t start, int64_t end, int64_t process = -1) {
  FaultView f;
  f.f = family, f.family = family, f.start = start, f.end = end, f.process = process;
  f.label = family;
  return f;
}

TEST(ExplainAtTest, TheWindowBegunLastAmongThoseInForce) {
  const std::vector<FaultView> faults = {Window("partition", 1 * kS, 9 * kS),
                                         Window("clock", 3 * kS, 6 * kS)};
  const FaultExplanation e = ExplainAt(faults, 4 * kS, {});
  EXPECT_EQ(e.fault, 1);
  EXPECT_TRUE(e.active);
  EXPECT_EQ(e.gap_ns, 1 * kS);
}

TEST(ExplainAtTest, APauseOfOneOfTheHoldersWins) {
  const std::vector<FaultView> faults = {Window("client-pause", 1 * kS, 5 * kS, 7),
                                         Window("kill", 3 * kS, 6 * kS)};
  EXPECT_EQ(ExplainAt(faults, 4 * kS, {2, 7}).fault, 0);
  EXPECT_EQ(ExplainAt(faults, 4 * kS, {2, 3}).fault, 1);  // paused someone else
}

TEST(ExplainAtTest, NoneInForceTheClosestBeforeAndNeverOneWithoutEffect) {
  std::vector<FaultView> faults = {Window("kill", 1 * kS, 2 * kS), Window("pause", 2 * kS, 3 * kS),
                                   Window("clock", 7 * kS, 8 * kS)};
  faults[1].effective = false;  // its node was down: it paused nothing
  FaultView promotion = Window("promotion", 2'500'000'000, 2'500'000'000);
  promotion.point = true;
  faults.push_back(promotion);
  FaultExplanation e = ExplainAt(faults, 4 * kS, {});
  EXPECT_EQ(e.fault, 3);
  EXPECT_FALSE(e.active);
  EXPECT_EQ(e.gap_ns, 1'500'000'000);
  faults.pop_back();
  e = ExplainAt(faults, 4 * kS, {});
  EXPECT_EQ(e.fault, 0);
  EXPECT_EQ(e.gap_ns, 2 * kS);
  EXPECT_EQ(ExplainAt(faults, kS / 2, {}).fault, -1);
}

TEST(OverlapOfTest, IntersectionOrNone) {
  StoryHold a, b;
  a.start = 10, a.end = 40, b.start = 30, b.end = 90;
  EXPECT_EQ(OverlapOf(a, b), std::make_pair(int64_t{30}, int64_t{40}));
  b.start = 40;
  EXPECT_EQ(OverlapOf(a, b), std::make_pair(int64_t{-1}, int64_t{-1}));
}

// p0 holds lock-0 from 1 s, is paused by the client-pause nemesis at 1.5 s
// for 2 s (its lease is 1 s); p1 acquires lock-0 at 2.6 s. A kill of n1
// came and went before; Sentinel promoted n3 at 3 s; p2 lost its lock.
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
      MakeOp(10, 3 * kS, kSentinelProcess, OpType::kInfo, "+switch-master", "",
             {{"from", "n1"}, {"to", "n3"}, {"sentinel", "s1"}}),
      MakeOp(11, 3'000'100'000, kSentinelProcess, OpType::kInfo, "+switch-master", "",
             {{"from", "n1"}, {"to", "n3"}, {"sentinel", "s2"}}),
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

TEST(ReportModelTest, FaultsGetFamilyLanesLabelsAndEvents) {
  const History h = PausedHolderHistory();
  const ReportModel m = ReportModel::Build(h, nlohmann::json::object());
  EXPECT_EQ(m.fault_lanes(), std::vector<std::string>({"kill", "clock", "client-pause",
                                                       "promotion", "lock-lost"}));
  ASSERT_EQ(m.faults().size(), 5u);
  EXPECT_EQ(m.faults()[0].label, "kill n1");
  EXPECT_EQ(m.faults()[0].end, 300'000'000);
  EXPECT_EQ(m.faults()[1].label, "client-pause p0 holding lock-0 for 2.000 s");
  EXPECT_EQ(m.faults()[1].process, 0);
  EXPECT_EQ(m.faults()[2].label, "clock-bump n3 +10 s");
  // The same promotion seen by two sentinels is one event.
  EXPECT_TRUE(m.faults()[3].point);
  EXPECT_EQ(m.faults()[3].label, "promotion n1 \xE2\x86\x92 n3, seen by s1 s2");
  EXPECT_EQ(m.faults()[4].label, "p2 lost lock-1: the session expired");
  EXPECT_EQ(m.faults()[4].process, 2);
  ASSERT_EQ(m.clocks().size(), 1u);
  EXPECT_EQ(m.clocks()[0].node, "n3");
  EXPECT_EQ(m.clocks()[0].time, std::vector<int64_t>({0, 3'600'000'000, 4'100'000'000}));
  EXPECT_EQ(m.clocks()[0].offset_ms, std::vector<double>({0, 10002.5, 0.2}));
}

TEST(ReportModelTest, ADoubleHolderStoryFromTheModelsHolds) {
  const History h = PausedHolderHistory();
  const ReportModel m = ReportModel::Build(h, nlohmann::json::object());
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
  const ReportModel m = ReportModel::Build(h, nlohmann::json::object());
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
