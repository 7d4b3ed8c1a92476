#include "checker/key_spool.h"

#include <stdlib.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "base/testing/temp_dir.h"

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

TEST(KeySpoolTest, AStreamTakenReadsItsKeyAgainAfterItsFileIsGone) {
  const testing::TempDir tmp;
  const std::string& dir = tmp.path();
  ::setenv("TMPDIR", dir.c_str(), 1);
  KeySpool spool(1000);  // spills at once
  History a;
  for (int64_t i = 0; i < 100; ++i) {
    const Op op = MakeOp(i, "a");
    a.push_back(op);
    ASSERT_TRUE(spool.Add(op.key, op));
  }
  ::unsetenv("TMPDIR");
  ASSERT_TRUE(spool.spilled());
  size_t ops = 0;
  auto stream = spool.TakeStream("a", &ops);
  ASSERT_TRUE(stream) << stream.error();
  EXPECT_EQ(ops, a.size());
  // The spool's directory holds no file once its key's stream is taken.
  size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    files += entry.is_regular_file() ? 1 : 0;
  }
  EXPECT_EQ(files, 0u);
  for (int round = 0; round < 2; ++round) {  // read, rewound, read again
    auto got = ReadAll(**stream);
    ASSERT_TRUE(got) << got.error();
    ExpectSameOps(*got, a);
    ASSERT_TRUE((*stream)->Rewind());
  }
  stream->reset();
  EXPECT_TRUE(spool.Take("a")->empty());
}

}  // namespace
}  // namespace locksmith
