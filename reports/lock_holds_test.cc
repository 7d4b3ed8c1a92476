#include "reports/lock_holds.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

Op MakeOp(int64_t index, int64_t time, int64_t process, OpType type, std::string f,
          std::string key, nlohmann::json value = nullptr) {
  Op op;
  op.index = index, op.time = time, op.process = process, op.type = type;
  op.f = std::move(f), op.key = std::move(key), op.value = std::move(value);
  return op;
}

TEST(LockHoldsTest, FromAcquireOkToReleaseInvokeWithTheLeasesEnd) {
  const History h = {
      MakeOp(0, 10, 0, OpType::kInvoke, "acquire", "a"),
      MakeOp(1, 20, 0, OpType::kOk, "acquire", "a", {{"validity_ms", 0.00005}}),
      MakeOp(2, 30, 1, OpType::kOk, "lock", "b"),  // never released
      MakeOp(3, 40, 0, OpType::kInvoke, "release", "a"),
      MakeOp(4, 50, 0, OpType::kOk, "acquire", "a"),
      MakeOp(5, 60, 0, OpType::kOk, "acquire", "a"),  // over its own hold: that one stays open
  };
  Interner keys;
  const LockHolds holds = LockHolds::Build(h, ProcessLanes::Build(h, 100), &keys, 100);
  ASSERT_EQ(holds.size(), 4u);
  const LockHolds::Hold* first = holds.ByAcquire(1);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->start, 20);
  EXPECT_EQ(first->end, 40);
  EXPECT_EQ(first->lease_end, 70);
  EXPECT_FALSE(first->open);
  EXPECT_TRUE(holds.ByAcquire(2)->open);
  EXPECT_EQ(holds.ByAcquire(2)->end, 100);
  EXPECT_EQ(holds.ByAcquire(4)->end, 60);
  EXPECT_TRUE(holds.ByAcquire(4)->open);
  EXPECT_EQ(holds.ByAcquire(5)->lease_end, -1);
  EXPECT_EQ(holds.ByAcquire(3), nullptr);
}

}  // namespace
}  // namespace locksmith
