#include "harness/in_flight_ops.h"

#include <gtest/gtest.h>

#include "history/testing/memory_recorder.h"

namespace locksmith {
namespace {

using std::chrono::seconds;

class InFlightOpsTest : public ::testing::Test {
 protected:
  void Record(int64_t process, OpType type, std::string f, std::string key = "") {
    ops_.Record(Op{.process = process, .type = type, .f = std::move(f), .key = std::move(key)});
  }
  std::chrono::steady_clock::time_point now_ = std::chrono::steady_clock::time_point{} + seconds(100);
  testing::MemoryRecorder memory_{[this] { return now_; }};
  InFlightOps ops_{memory_, 10};
};

TEST_F(InFlightOpsTest, NamesTheOpsStillOpenLongestFirst) {
  Record(3, OpType::kInvoke, "acquire", "lock-0");       // at 0 s
  now_ += seconds(1);
  Record(kNemesisProcess, OpType::kInvoke, "kill");        // at 1 s
  Record(14, OpType::kInvoke, "release", "lock-1");      // at 1 s: worker 4, second process
  now_ += seconds(1);
  Record(14, OpType::kOk, "release", "lock-1");
  Record(3, OpType::kOk, "renew", "lock-0");  // a lock event: the acquire stays open
  EXPECT_EQ(ops_.open(), 2u);
  EXPECT_EQ(ops_.Describe(seconds(5)),
            "worker 3 (process 3) in acquire lock-0 for 5.0 s, the nemesis in kill for 4.0 s");
  EXPECT_EQ(memory_.history().size(), 5u);  // every op recorded through
}

TEST_F(InFlightOpsTest, SaysHowManyMoreThanItNames) {
  for (int p = 0; p < 6; ++p) Record(p, OpType::kInvoke, "acquire", "k");
  EXPECT_EQ(ops_.Describe(seconds(0), 2),
            "worker 0 (process 0) in acquire k for 0.0 s, worker 1 (process 1) in acquire k for "
            "0.0 s (and 4 more)");
  for (int p = 0; p < 6; ++p) Record(p, OpType::kInfo, "acquire", "k");
  EXPECT_EQ(ops_.Describe(seconds(0)), "");
}

}  // namespace
}  // namespace locksmith
