#include "checker/pass_worker.h"

#include <thread>

#include <gtest/gtest.h>

namespace locksmith {
namespace {

// Notes the index of every op it observes, and the thread it ran on.
class IndexPass : public CheckPass {
 public:
  void Observe(const Op& op) override {
    seen.push_back(op.index);
    thread = std::this_thread::get_id();
  }
  CheckResult Finish() override { return {}; }
  std::vector<int64_t> seen;
  std::thread::id thread;
};

TEST(PassWorkerTest, EveryPassSeesEveryOpOfEachBatchInOrderOnItsThread) {
  IndexPass a, b;
  std::vector<Op> batch(10);
  {
    PassWorker worker({&a, &b});
    for (int64_t round = 0; round < 3; ++round) {
      for (size_t i = 0; i < batch.size(); ++i) {
        batch[i].index = round * 100 + static_cast<int64_t>(i);
      }
      worker.Start(&batch, round == 2 ? 4 : batch.size());  // the last one partly filled
      worker.Wait();
    }
  }
  std::vector<int64_t> expected;
  for (int64_t round = 0; round < 3; ++round) {
    for (int64_t i = 0; i < (round == 2 ? 4 : 10); ++i) expected.push_back(round * 100 + i);
  }
  EXPECT_EQ(a.seen, expected);
  EXPECT_EQ(b.seen, expected);
  EXPECT_NE(a.thread, std::this_thread::get_id());
}

TEST(PassWorkerTest, DestroyedWithoutABatchStartsNoThread) {
  IndexPass a;
  { PassWorker worker({&a}); }
  EXPECT_TRUE(a.seen.empty());
}

}  // namespace
}  // namespace locksmith
