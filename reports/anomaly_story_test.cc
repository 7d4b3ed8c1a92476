#include "reports/anomaly_story.h"

#include <gtest/gtest.h>

#include "checker/checker.h"

namespace locksmith {
namespace {

constexpr int64_t kS = 1'000'000'000;

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

Op MakeOp(int64_t index, int64_t time, int64_t process, OpType type, std::string f,
          std::string key = "", nlohmann::json value = nullptr) {
  Op op;
  op.index = index, op.time = time, op.process = process, op.type = type;
  op.f = std::move(f), op.key = std::move(key), op.value = std::move(value);
  return op;
}

// p0 holds lock-0 [1 s, 4 s) with a 1 s lease; p1 [2 s, 3 s).
History TwoHolders() {
  return {MakeOp(0, 1 * kS, 0, OpType::kOk, "acquire", "lock-0", {{"validity_ms", 1000}}),
          MakeOp(1, 2 * kS, 1, OpType::kOk, "acquire", "lock-0"),
          MakeOp(2, 3 * kS, 1, OpType::kInvoke, "release", "lock-0"),
          MakeOp(3, 4 * kS, 0, OpType::kInvoke, "release", "lock-0")};
}

LockHolds HoldsOf(const History& h) {
  Interner keys;
  return LockHolds::Build(h, ProcessLanes::Build(h, 4 * kS), &keys, 4 * kS);
}

TEST(TellStoryTest, TheHoldsNamedByTheirAcquiresTheOverlapAndTheFaultInForce) {
  const History h = TwoHolders();
  const LockHolds holds = HoldsOf(h);
  const std::vector<FaultView> faults = {Window("kill", 0, 10 * kS),
                                         Window("client-pause", 1'500'000'000, 5 * kS, 0)};
  const nlohmann::json anomaly = {
      {"holders", {{{"process", 1}, {"acquire", OpRef(h[1])}}, {{"acquire", OpRef(h[0])}}}}};
  const AnomalyStory st = TellStory(anomaly, holds, faults, 4 * kS);
  ASSERT_EQ(st.holds.size(), 2u);
  EXPECT_EQ(st.holds[0].process, 0);  // by start
  EXPECT_EQ(st.holds[0].lease_end, 2 * kS);
  EXPECT_EQ(st.holds[1].end, 3 * kS);
  EXPECT_EQ(st.overlap_start, 2 * kS);
  EXPECT_EQ(st.overlap_end, 3 * kS);
  EXPECT_EQ(st.at, 2 * kS);
  EXPECT_EQ(st.cause.fault, 1);  // the pause of holder p0, though the kill began earlier
  EXPECT_EQ(st.active, std::vector<int64_t>({0, 1}));
}

TEST(TellStoryTest, ALinearizabilityFailureHappensAtItsOp) {
  const History h = TwoHolders();
  const LockHolds holds = HoldsOf(h);
  const AnomalyStory st = TellStory({{"op", OpRef(h[2])}, {"ops", {OpRef(h[1])}}}, holds, {}, 0);
  EXPECT_TRUE(st.holds.empty());
  EXPECT_EQ(st.at, 3 * kS);
  EXPECT_EQ(st.cause.fault, -1);
  EXPECT_EQ(TellStory(nlohmann::json::array(), holds, {}, 0).at, -1);
}

nlohmann::json Linearized(const History& h, size_t invoke, size_t done) {
  nlohmann::json ref = OpRef(h[done]);
  ref["invoke_index"] = h[invoke].index;
  return ref;
}

// p0 acquires [1 s, 1.1 s] and p2 [1.2 s, 1.3 s]; p1's acquire [2.2 s, 2.3 s]
// cannot follow, the lock being held by process 0.
History Conflicting() {
  return {MakeOp(0, 1 * kS, 0, OpType::kInvoke, "acquire", "lock-0"),
          MakeOp(1, 1'100'000'000, 0, OpType::kOk, "acquire", "lock-0"),
          MakeOp(2, 1'200'000'000, 2, OpType::kInvoke, "acquire", "lock-0"),
          MakeOp(3, 1'300'000'000, 2, OpType::kFail, "acquire", "lock-0"),
          MakeOp(4, 2'200'000'000, 1, OpType::kInvoke, "acquire", "lock-0"),
          MakeOp(5, 2'300'000'000, 1, OpType::kOk, "acquire", "lock-0")};
}

TEST(TellStoryTest, ANonlinearizableOpConflictsWithTheOpsOfTheProcessesItsStateNames) {
  const History h = Conflicting();
  const nlohmann::json anomaly = {{"type", "nonlinearizable"},
                                  {"op", Linearized(h, 4, 5)},
                                  {"prefix", {Linearized(h, 0, 1), Linearized(h, 2, 3)}},
                                  {"state", "held by process 0, last fence 12"}};
  const InvokeTimes invokes = {{0, 1 * kS}, {1, 1 * kS}, {4, 2'200'000'000}, {5, 2'200'000'000}};
  // A kill over before the conflict, a pause inside it, a partition after.
  const std::vector<FaultView> faults = {Window("kill", kS / 4, kS / 2),
                                         Window("pause", 1'500'000'000, 1'600'000'000),
                                         Window("partition", 2'367'000'000, 3 * kS)};
  AnomalyStory st = TellStory(anomaly, HoldsOf(h), faults, 3 * kS, invokes);
  ASSERT_EQ(st.conflict.with.size(), 1u);
  EXPECT_EQ(st.conflict.with[0]["index"], 1);  // p0's acquire, not p2's refusal
  EXPECT_EQ(st.conflict.from, 1 * kS);          // p0's invoke
  EXPECT_EQ(st.conflict.to, 2'300'000'000);     // p1's completion
  EXPECT_EQ(st.conflict.during, std::vector<int64_t>({1}));
  EXPECT_EQ(st.conflict.next_fault, 2);
  EXPECT_EQ(st.conflict.next_gap_ns, 67'000'000);

  // Without the pause, nothing during it: the kill before, over 500 ms
  // before the conflict began.
  const std::vector<FaultView> no_pause = {faults[0], faults[2]};
  st = TellStory(anomaly, HoldsOf(h), no_pause, 3 * kS, invokes);
  EXPECT_TRUE(st.conflict.during.empty());
  EXPECT_EQ(st.conflict.before.fault, 0);
  EXPECT_EQ(st.conflict.before.gap_ns, kS / 2);

  // A state naming no process: the refuted op's own process's last op and
  // the order's last.
  nlohmann::json free = anomaly;
  free["state"] = "free";
  st = TellStory(free, HoldsOf(h), faults, 3 * kS, invokes);
  ASSERT_EQ(st.conflict.with.size(), 1u);
  EXPECT_EQ(st.conflict.with[0]["index"], 3);  // p1 has none: p2's refusal, the order's last

  // As in a run with a kill on Redis without persistence: the order put
  // first p2's acquire, invoked at 1.2 s, waiting until 2.6 s, after p1's
  // completed; the kill at 2.367 s, after p1's acquire, falls inside.
  History waited = Conflicting();
  waited[3] = MakeOp(3, 2'600'000'000, 2, OpType::kOk, "acquire", "lock-0");
  nlohmann::json later = anomaly;
  later["prefix"] = {Linearized(waited, 0, 1), Linearized(waited, 2, 3)};
  later["state"] = "held by process 2";
  const InvokeTimes waits = {{2, 1'200'000'000}, {3, 1'200'000'000}, {4, 2'200'000'000}};
  st = TellStory(later, HoldsOf(waited), faults, 3 * kS, waits);
  ASSERT_EQ(st.conflict.with.size(), 1u);
  EXPECT_EQ(st.conflict.from, 1'200'000'000);
  EXPECT_EQ(st.conflict.to, 2'600'000'000);
  EXPECT_EQ(st.conflict.during, std::vector<int64_t>({1, 2}));

  // Other anomalies tell no conflict.
  EXPECT_EQ(TellStory({{"op", OpRef(h[5])}}, HoldsOf(h), faults, 3 * kS).conflict.to, -1);
}

}  // namespace
}  // namespace locksmith
