// MemoTable's subsumption: plain per-class counts, and a coverer class
// paying for the classes it covers.
#include "checker/memo_table.h"

#include <gtest/gtest.h>

#include <vector>

namespace locksmith {
namespace {

// Inserts a node with these per-class counts under one key.
bool Covered(MemoTable& memo, const std::vector<uint32_t>& consumed) {
  const std::vector<uint32_t> key = {7, 0, 0, 0, 1};
  std::vector<uint32_t> nonzero;
  for (uint32_t c = 0; c < consumed.size(); ++c) {
    if (consumed[c] > 0) nonzero.push_back(c);
  }
  return memo.CoveredOrInsert(key, nonzero, consumed);
}

TEST(MemoTableTest, FewerPendingOpsCoverMore) {
  MemoTable memo;
  EXPECT_FALSE(Covered(memo, {1, 0}));
  EXPECT_TRUE(Covered(memo, {1, 0}));
  EXPECT_TRUE(Covered(memo, {2, 1}));
  EXPECT_FALSE(Covered(memo, {0, 1}));  // incomparable
  EXPECT_TRUE(Covered(memo, {0, 2}));
}

TEST(MemoTableTest, ACovererPaysForWhatItCovers) {
  // Class 0 (a write of v) covers classes 1 and 2 (cas [x v], cas [y v]).
  MemoTable memo;
  memo.SetCoverers({-1, 0, 0});
  EXPECT_FALSE(Covered(memo, {0, 1, 0}));  // stored: used one cas, kept the write
  EXPECT_TRUE(Covered(memo, {1, 0, 0}));   // used the write: its kept cas is no better
  EXPECT_FALSE(Covered(memo, {0, 0, 1}));  // a cas of another class: not the same
  // Two cas ops used by stored nodes need two writes used here.
  MemoTable two;
  two.SetCoverers({-1, 0, 0});
  EXPECT_FALSE(Covered(two, {0, 1, 1}));
  EXPECT_FALSE(Covered(two, {1, 0, 0}));   // one write cannot pay for two cas
  EXPECT_TRUE(Covered(two, {2, 0, 0}));
  EXPECT_TRUE(Covered(two, {1, 1, 0}));    // stored {1,0,0} covers this directly
  // The other way round never: a stored write is not paid by cas ops.
  MemoTable back;
  back.SetCoverers({-1, 0, 0});
  EXPECT_FALSE(Covered(back, {1, 0, 0}));
  EXPECT_FALSE(Covered(back, {0, 1, 0}));
  EXPECT_FALSE(Covered(back, {0, 0, 1}));
}

TEST(MemoTableTest, ACovererAlsoUsedByTheStoredNodePaysOnlyItsSurplus) {
  MemoTable memo;
  memo.SetCoverers({-1, 0});
  EXPECT_FALSE(Covered(memo, {1, 1}));  // stored: one write and one cas
  EXPECT_FALSE(Covered(memo, {1, 0}));  // same writes, one cas fewer: not covered
  EXPECT_TRUE(Covered(memo, {2, 0}));   // one more write pays for the cas
}

}  // namespace
}  // namespace locksmith
