#include "checker/checker.h"

#include <gtest/gtest.h>

#include "checker/double_holder.h"
#include "checker/perf_stats.h"
#include "history/testing/history_builder.h"

namespace locksmith {
namespace {

using testing::HistoryBuilder;

CompositeChecker PerfAndDoubleHolder() {
  std::vector<std::unique_ptr<Checker>> checkers;
  checkers.push_back(std::make_unique<PerfStatsChecker>());
  checkers.push_back(std::make_unique<DoubleHolderChecker>());
  return CompositeChecker(std::move(checkers));
}

// Two processes hold k at once: an anomaly, with its ops.
History DoubleHold() {
  return HistoryBuilder()
      .Invoke(0, "acquire", {{"lease_ms", 1000}}, "k")
      .Ok(0, {{"token", "a"}, {"validity_ms", 1000}})
      .Invoke(1, "acquire", {{"lease_ms", 1000}}, "k")
      .Ok(1, {{"token", "b"}, {"validity_ms", 1000}})
      .Invoke(0, "release", {{"token", "a"}}, "k")
      .Ok(0)
      .Invoke(1, "release", {{"token", "b"}}, "k")
      .Ok(1)
      .Build();
}

TEST(CheckerTest, OnePassOverAStreamJudgesAsCheckDoes) {
  const History history = DoubleHold();
  const CompositeChecker checker = PerfAndDoubleHolder();
  const CheckResult whole = checker.Check(history);
  EXPECT_EQ(whole.valid, Validity::kFalse);
  HistoryOpStream stream(history);
  auto streamed = CheckStream(checker, stream);
  ASSERT_TRUE(streamed) << streamed.error();
  EXPECT_EQ(streamed->ToJson(), whole.ToJson());
  EXPECT_EQ(streamed->anomalies[0]["checker"], "double-holder");
  EXPECT_EQ(streamed->stats["perf"]["stats"]["ops"], 4);
}

TEST(CheckerTest, AStreamOfManyBatchesJudgesAsCheckDoes) {
  // Taken ops are judged in batches, half of the passes on another thread:
  // the verdict, every anomaly and every stat stay those of Check.
  HistoryBuilder b;
  for (int i = 0; i < 2500; ++i) {
    const std::string key = "k" + std::to_string(i % 7);
    const int64_t p = i % 5, q = 5 + i % 3;
    b.Invoke(p, "acquire", {{"lease_ms", 1000}}, key).Ok(p, {{"token", "a"}, {"validity_ms", 1000}});
    if (i % 10 == 0) {
      b.Invoke(q, "acquire", {{"lease_ms", 1000}}, key).Ok(q, {{"token", "b"}, {"validity_ms", 1000}});
      b.Invoke(q, "release", {{"token", "b"}}, key).Ok(q);
    }
    b.Invoke(p, "release", {{"token", "a"}}, key).Ok(p);
  }
  const History history = b.Build();
  const CompositeChecker checker = PerfAndDoubleHolder();
  const CheckResult whole = checker.Check(history);
  ASSERT_EQ(whole.valid, Validity::kFalse);
  HistoryOpStream stream(history);
  auto streamed = CheckStream(checker, stream);
  ASSERT_TRUE(streamed) << streamed.error();
  EXPECT_EQ(streamed->ToJson(), whole.ToJson());
  EXPECT_EQ(streamed->stats["perf"]["stats"]["ops"], history.size() / 2);
}

TEST(CheckerTest, EachPassIsItsOwn) {
  const History history = DoubleHold();
  const CompositeChecker checker = PerfAndDoubleHolder();
  auto first = checker.Start();
  auto second = checker.Start();
  for (const Op& op : history) first->Observe(op);
  second->Observe(history[0]);
  EXPECT_EQ(first->Finish().valid, Validity::kFalse);
  const CheckResult one_op = second->Finish();
  EXPECT_EQ(one_op.valid, Validity::kTrue);
  EXPECT_EQ(one_op.stats["perf"]["stats"]["ops"], 1);
}

TEST(CheckerTest, TrackerSaysWhatNothingToJudgeSays) {
  auto acquires = [](const Op& invoke) { return invoke.f == "acquire"; };
  const History refused = HistoryBuilder()
                              .Invoke(0, "acquire", nullptr, "k")
                              .Fail(0)
                              .Call(1, "read", nullptr, 3, "r")
                              .Build();
  NothingToJudgeTracker tracker(acquires);
  for (const Op& op : refused) tracker.Observe(op);
  EXPECT_FALSE(tracker.Reason().empty());
  EXPECT_EQ(tracker.Reason(), NothingToJudge(refused, acquires));
  CheckResult result;
  tracker.Apply(result);
  EXPECT_EQ(result.valid, Validity::kUnknown);

  NothingToJudgeTracker granted(acquires);
  for (const Op& op : DoubleHold()) granted.Observe(op);
  EXPECT_EQ(granted.Reason(), "");
}

TEST(CheckerTest, NothingToJudgeWithoutAClientOpInvokedAndCompletedOk) {
  auto op = [](int64_t index, int64_t process, OpType type, const char* f) {
    return Op{index, index, process, type, f, "k", nullptr, ""};
  };
  const Op invoke = op(0, 1, OpType::kInvoke, "acquire");
  const Op ok = op(1, 1, OpType::kOk, "acquire");
  EXPECT_FALSE(NothingToJudge({}).empty());
  EXPECT_FALSE(NothingToJudge({ok}).empty());  // a completion with no invoke
  EXPECT_FALSE(NothingToJudge({op(0, kNemesisProcess, OpType::kInvoke, "kill"),
                               op(1, kNemesisProcess, OpType::kOk, "kill")})
                   .empty());
  EXPECT_FALSE(NothingToJudge({invoke, op(1, 1, OpType::kInfo, "acquire")}).empty());
  // Another process's ok does not complete process 1's invoke.
  EXPECT_FALSE(NothingToJudge({invoke, op(1, 2, OpType::kOk, "acquire")}).empty());
  EXPECT_TRUE(NothingToJudge({invoke, ok}).empty());
  // Narrowed to the ops a checker models.
  auto only_release = [](const Op& o) { return o.f == "release"; };
  EXPECT_FALSE(NothingToJudge({invoke, ok}, only_release).empty());

  CheckResult valid;
  ApplyNothingToJudge({}, valid);
  EXPECT_EQ(valid.valid, Validity::kUnknown);
  EXPECT_NE(valid.reason.find("no client operation succeeded"), std::string::npos);
  CheckResult invalid;
  invalid.valid = Validity::kFalse;  // an anomaly in what there is stands
  ApplyNothingToJudge({}, invalid);
  EXPECT_EQ(invalid.valid, Validity::kFalse);
  CheckResult judged;
  ApplyNothingToJudge({invoke, ok}, judged);
  EXPECT_EQ(judged.valid, Validity::kTrue);
  EXPECT_TRUE(judged.reason.empty());
}

}  // namespace
}  // namespace locksmith
