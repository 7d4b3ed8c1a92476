#include "history/prefetch_op_stream.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

History Numbered(size_t n) {
  History h;
  for (size_t i = 0; i < n; ++i) {
    Op op;
    op.index = static_cast<int64_t>(i);
    op.time = static_cast<int64_t>(i) * 10;
    op.process = static_cast<int64_t>(i % 7);
    op.type = i % 2 ? OpType::kOk : OpType::kInvoke;
    op.f = "acquire";
    op.key = "k" + std::to_string(i % 3);
    op.value = {{"token", std::to_string(i)}};
    h.push_back(std::move(op));
  }
  return h;
}

// Gives `good` ops, then an error.
class BrokenStream : public OpStream {
 public:
  explicit BrokenStream(size_t good) : good_(good) {}
  Result<bool> Next(Op* op) override {
    if (given_ == good_) return Error{"history.bin: record 9: a bad record"};
    *op = Op{};
    op->index = static_cast<int64_t>(given_++);
    return true;
  }
  Status Rewind() override {
    given_ = 0;
    return OkStatus();
  }
  const std::vector<SkippedLine>& skipped() const override { return skipped_; }

 private:
  const size_t good_;
  size_t given_ = 0;
  std::vector<SkippedLine> skipped_;
};

TEST(PrefetchOpStreamTest, GivesEveryOpInOrderAcrossManyBatches) {
  const History h = Numbered(PrefetchOpStream::kBatchOps * (PrefetchOpStream::kDepth + 3) + 5);
  HistoryOpStream inner(h);
  PrefetchOpStream prefetch(inner);
  auto all = ReadAll(prefetch);
  ASSERT_TRUE(all) << all.error();
  ASSERT_EQ(all->size(), h.size());
  for (size_t i = 0; i < h.size(); ++i) ASSERT_EQ(OpToJsonLine((*all)[i]), OpToJsonLine(h[i]));
  Op op;
  auto more = prefetch.Next(&op);  // the end stays the end
  ASSERT_TRUE(more);
  EXPECT_FALSE(*more);
}

TEST(PrefetchOpStreamTest, WhatTheReaderLeavesInItsOpNeverComesBack) {
  // The reader's op goes back to the reading thread, to decode into: what
  // the reader left in it must not leak into a later op.
  const History h = Numbered(PrefetchOpStream::kBatchOps * (PrefetchOpStream::kDepth + 4) + 3);
  HistoryOpStream inner(h);
  PrefetchOpStream prefetch(inner);
  Op op;
  for (size_t i = 0; i < h.size(); ++i) {
    auto more = prefetch.Next(&op);
    ASSERT_TRUE(more && *more) << i;
    ASSERT_EQ(OpToJsonLine(op), OpToJsonLine(h[i])) << i;
    op.f = "left-by-the-reader";
    op.value = {{"stale", i}};
    op.fault = {{"window", 1}};
  }
  auto more = prefetch.Next(&op);
  ASSERT_TRUE(more);
  EXPECT_FALSE(*more);
}

TEST(PrefetchOpStreamTest, RewindsMidwayAndStartsOver) {
  const History h = Numbered(PrefetchOpStream::kBatchOps * 3);
  HistoryOpStream inner(h);
  PrefetchOpStream prefetch(inner);
  Op op;
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(*prefetch.Next(&op));
  ASSERT_TRUE(prefetch.Rewind());
  auto all = ReadAll(prefetch);
  ASSERT_TRUE(all) << all.error();
  ASSERT_EQ(all->size(), h.size());
  EXPECT_EQ(all->front().index, 0);
  EXPECT_EQ(all->back().index, static_cast<int64_t>(h.size()) - 1);
}

TEST(PrefetchOpStreamTest, GivesTheOpsBeforeAnErrorThenTheError) {
  BrokenStream inner(PrefetchOpStream::kBatchOps + 10);
  PrefetchOpStream prefetch(inner);
  Op op;
  size_t read = 0;
  Result<bool> more = true;
  while ((more = prefetch.Next(&op)) && *more) ++read;
  EXPECT_EQ(read, PrefetchOpStream::kBatchOps + 10);
  ASSERT_FALSE(more);
  EXPECT_EQ(more.error(), "history.bin: record 9: a bad record");
}

TEST(PrefetchOpStreamTest, DestroyedBeforeTheEndStopsItsReader) {
  const History h = Numbered(PrefetchOpStream::kBatchOps * (PrefetchOpStream::kDepth + 4));
  HistoryOpStream inner(h);
  {
    PrefetchOpStream prefetch(inner);
    Op op;
    ASSERT_TRUE(*prefetch.Next(&op));
  }  // the reader is blocked on a full queue here: it must stop, not hang
  ASSERT_TRUE(inner.Rewind());
}

}  // namespace
}  // namespace locksmith
