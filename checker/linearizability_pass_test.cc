#include <gtest/gtest.h>

#include "checker/linearizability_checker.h"
#include "checker/testing/history_builder.h"

namespace locksmith {
namespace {

using testing::HistoryBuilder;

// What must not depend on whether the keys were checked together or one at
// a time: all but the search's timings.
nlohmann::json Judgement(const CheckResult& r) {
  nlohmann::json j = r.ToJson();
  j["stats"].erase("time_s");
  j["stats"].erase("peak_memory_bytes");
  return j;
}

CheckResult Streamed(const Checker& checker, const History& history) {
  HistoryOpStream stream(history);
  auto result = CheckStream(checker, stream);
  EXPECT_TRUE(result) << result.error();
  return result ? *result : CheckResult();
}

LinearizabilityChecker OwnerMutex() {
  LinearizabilityOptions options;
  options.model = "owner-mutex";
  return LinearizabilityChecker(options);
}

TEST(LinearizabilityPassTest, KeysCheckedOneAtATimeJudgeAsTogether) {
  HistoryBuilder b;
  for (int i = 0; i < 5; ++i) {
    b.Invoke(0, "acquire", nullptr, "a").Ok(0).Invoke(0, "release", nullptr, "a").Ok(0);
  }
  // b is granted twice with no release between: not linearizable.
  b.Invoke(1, "acquire", nullptr, "b").Ok(1).Invoke(2, "acquire", nullptr, "b").Ok(2);
  b.Invoke(3, "client-stats").Ok(3, {{"calls", 2}});
  const History& history = b.Build();
  const LinearizabilityChecker checker = OwnerMutex();
  const CheckResult whole = checker.Check(history);
  EXPECT_EQ(whole.valid, Validity::kFalse);
  EXPECT_EQ(whole.stats["partitions"], 2);
  EXPECT_EQ(Judgement(Streamed(checker, history)), Judgement(whole));
}

TEST(LinearizabilityPassTest, NothingToJudgeAndNoModelledOpAsTogether) {
  const LinearizabilityChecker checker = OwnerMutex();
  const History refused =
      HistoryBuilder().Invoke(0, "acquire", nullptr, "a").Fail(0).Build();
  const CheckResult whole = checker.Check(refused);
  EXPECT_EQ(whole.valid, Validity::kUnknown);
  EXPECT_EQ(Judgement(Streamed(checker, refused)), Judgement(whole));
  const History stats_only = HistoryBuilder().Invoke(0, "client-stats").Ok(0).Build();
  const CheckResult none = checker.Check(stats_only);
  EXPECT_EQ(none.valid, Validity::kUnknown);
  EXPECT_EQ(Streamed(checker, stats_only).ToJson(), none.ToJson());
}

}  // namespace
}  // namespace locksmith
