#include "checker/key_spool.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

Op MakeOp(int64_t index, const std::string& key) {
  Op op;
  op.index = index;
  op.time = index * 10;
  op.process = index % 3;
  op.type = index % 2 ? OpType::kOk : OpType::kInvoke;
  op.f = "acquire";
  op.key = key;
  op.value = {{"token", std::to_string(index)}};
  return op;
}

void ExpectSameOps(const History& got, const History& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(OpToJsonLine(got[i]), OpToJsonLine(want[i]));
}

TEST(KeySpoolTest, GivesEachKeysOpsBackInOrderWhetherSpilledOrNot) {
  for (size_t budget : {size_t{1} << 30, size_t{1000}}) {
    KeySpool spool(budget);
    History a, b;
    for (int64_t i = 0; i < 100; ++i) {
      const Op op = MakeOp(i, i % 4 == 0 ? "b" : "a");
      (op.key == "a" ? a : b).push_back(op);
      ASSERT_TRUE(spool.Add(op.key, op));
    }
    EXPECT_EQ(spool.spilled(), budget < 10000);
    EXPECT_EQ(spool.keys(), (std::vector<std::string>{"b", "a"}));
    auto got_a = spool.Take("a");
    ASSERT_TRUE(got_a) << got_a.error();
    ExpectSameOps(*got_a, a);
    auto got_b = spool.Take("b");
    ASSERT_TRUE(got_b) << got_b.error();
    ExpectSameOps(*got_b, b);
    auto again = spool.Take("a");
    ASSERT_TRUE(again);
    EXPECT_TRUE(again->empty());
  }
}

}  // namespace
}  // namespace locksmith
