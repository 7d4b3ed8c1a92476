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

}  // namespace
}  // namespace locksmith
