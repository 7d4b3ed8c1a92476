#include "workloads/op_log.h"

#include <gtest/gtest.h>

#include "history/testing/memory_recorder.h"

namespace locksmith {
namespace {

using testing::MemoryRecorder;

TEST(OpLogTest, RecordsInvokeAndCompletionUnderOneProcess) {
  MemoryRecorder recorder;
  OpLog log(recorder, 2, 10);
  log.Invoke("acquire", "lock-1", {{"lease_ms", 100}});
  log.Complete(Outcome::kOk, {{"token", "t"}}, "");
  const History h = recorder.history();
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h[0].type, OpType::kInvoke);
  EXPECT_EQ(h[1].type, OpType::kOk);
  EXPECT_EQ(h[1].f, "acquire");
  EXPECT_EQ(h[1].key, "lock-1");
  EXPECT_EQ(h[0].process, 2);
  EXPECT_EQ(h[1].process, 2);
  EXPECT_EQ(h[1].index, 1);
}

TEST(OpLogTest, UnknownBecomesInfoAndTheNextOpUsesANewProcess) {
  MemoryRecorder recorder;
  OpLog log(recorder, 2, 10);
  log.Invoke("acquire", "k", nullptr);
  log.Complete(Outcome::kUnknown, nullptr, "timeout");
  log.Invoke("acquire", "k", nullptr);
  log.Complete(Outcome::kFail, nullptr, "held");
  const History h = recorder.history();
  EXPECT_EQ(h[1].type, OpType::kInfo);
  EXPECT_EQ(h[1].error, "timeout");
  EXPECT_EQ(h[1].process, 2);
  EXPECT_EQ(h[2].process, 12);
  EXPECT_EQ(h[3].type, OpType::kFail);
  EXPECT_EQ(log.process(), 12);
}

TEST(AcquireCompletionValueTest, OkCarriesValidityFenceAndDetailOthersOnlyTheToken) {
  AcquireResult ok{.outcome = Outcome::kOk, .token = "t1", .fence = 42, .validity_ms = 990,
                   .detail = {{"granted", {"n1", "n2", "n3"}}}};
  EXPECT_EQ(AcquireCompletionValue(ok),
            nlohmann::json({{"token", "t1"}, {"validity_ms", 990}, {"fence", 42},
                            {"granted", {"n1", "n2", "n3"}}}));
  AcquireResult failed{.outcome = Outcome::kFail, .token = "t2", .fence = 7, .validity_ms = 5};
  EXPECT_EQ(AcquireCompletionValue(failed), nlohmann::json({{"token", "t2"}}));
}

}  // namespace
}  // namespace locksmith
