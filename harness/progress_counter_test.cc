// ProgressCounter on hand-made op sequences: completions counted, fault
// windows opened and closed, and the online double-holder count against the
// overlaps the double-holder checker reports (and the ones it does not).
#include "harness/progress_counter.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

using nlohmann::json;

class Ops {
 public:
  explicit Ops(ProgressCounter& counter) : counter_(counter) {}
  Ops& Client(int64_t process, OpType type, const std::string& f, json value = nullptr,
              const std::string& key = "lock-0") {
    Op op;
    op.index = index_++;
    op.time = time_ms_ * 1'000'000;
    op.process = process;
    op.type = type;
    op.f = f;
    op.key = key;
    op.value = std::move(value);
    counter_.Observe(op);
    return *this;
  }
  Ops& Fault(OpType type, const std::string& f, int64_t window, const std::string& family,
             bool begins) {
    Op op;
    op.index = index_++;
    op.time = time_ms_ * 1'000'000;
    op.process = kNemesisProcess;
    op.type = type;
    op.f = f;
    op.fault = FaultMark{window, family, begins}.ToJson();
    counter_.Observe(op);
    return *this;
  }
  Ops& At(int64_t ms) {
    time_ms_ = ms;
    return *this;
  }
  // acquire invoke + ok (lease 1000 ms), as the mutex workload records it.
  Ops& Acquire(int64_t process, const std::string& mode = "", const std::string& key = "lock-0") {
    json invoke = {{"lease_ms", 1000}};
    if (!mode.empty()) invoke["mode"] = mode;
    Client(process, OpType::kInvoke, "acquire", invoke, key);
    return Client(process, OpType::kOk, "acquire", {{"token", "t"}, {"validity_ms", 999}}, key);
  }
  Ops& Release(int64_t process, const std::string& key = "lock-0") {
    Client(process, OpType::kInvoke, "release", nullptr, key);
    return Client(process, OpType::kOk, "release", nullptr, key);
  }

 private:
  ProgressCounter& counter_;
  int64_t index_ = 0;
  int64_t time_ms_ = 0;
};

TEST(ProgressCounterTest, CountsClientCompletionsNotInvokesOrNemesisOps) {
  ProgressCounter counter;
  Ops(counter)
      .Acquire(0)
      .Release(0)
      .Client(1, OpType::kInvoke, "acquire", {{"lease_ms", 1000}})
      .Client(1, OpType::kFail, "acquire")
      .Client(2, OpType::kInvoke, "acquire", {{"lease_ms", 1000}})
      .Client(2, OpType::kInfo, "acquire")
      .Fault(OpType::kInvoke, "kill", 0, "kill", true)
      .Fault(OpType::kInfo, "kill", 0, "kill", true);
  const ProgressCounter::Snapshot s = counter.Take();
  EXPECT_EQ(s.ok, 2);
  EXPECT_EQ(s.fail, 1);
  EXPECT_EQ(s.info, 1);
  EXPECT_EQ(s.completions(), 4);
  EXPECT_EQ(s.double_holders, 0);
}

TEST(ProgressCounterTest, AFaultIsInForceFromItsBeginToItsEndsCompletion) {
  ProgressCounter counter;
  Ops ops(counter);
  ops.Fault(OpType::kInvoke, "kill", 0, "kill", true);
  EXPECT_EQ(counter.Take().faults, std::vector<std::string>{"kill"});
  ops.Fault(OpType::kInfo, "kill", 0, "kill", true)
      .Fault(OpType::kInvoke, "partition", 1, "partition", true)
      .Fault(OpType::kInvoke, "restart", 0, "kill", false);
  EXPECT_EQ(counter.Take().faults, (std::vector<std::string>{"kill", "partition"}));
  ops.Fault(OpType::kInfo, "restart", 0, "kill", false);
  EXPECT_EQ(counter.Take().faults, std::vector<std::string>{"partition"});
  ops.Fault(OpType::kInfo, "heal", 1, "partition", false);
  EXPECT_TRUE(counter.Take().faults.empty());
}

TEST(ProgressCounterTest, AGrantOverAnotherClientsHoldIsADoubleHolder) {
  ProgressCounter counter;
  Ops(counter).Acquire(0).At(10).Acquire(1).At(20).Release(0).At(30).Release(1);
  EXPECT_EQ(counter.Take().double_holders, 1);
}

TEST(ProgressCounterTest, HoldsEndAtTheReleaseInvokeAndKeysAreSeparate) {
  ProgressCounter counter;
  Ops ops(counter);
  ops.Acquire(0).Client(0, OpType::kInvoke, "release");
  ops.Acquire(1);                     // after 0's release was sent: fine
  ops.Acquire(2, "", "lock-1");       // another key
  ops.Acquire(1);                     // a reentrant acquire by the holder
  EXPECT_EQ(counter.Take().double_holders, 0);
}

TEST(ProgressCounterTest, AGoneClientsHoldLastsUntilItsLeaseEnds) {
  ProgressCounter counter;
  Ops ops(counter);
  // 0 holds, then its next op ends info: it may have crashed, its lease protects until 999 ms.
  ops.Acquire(0).At(100).Client(0, OpType::kInvoke, "release").Client(0, OpType::kInfo, "release");
  EXPECT_EQ(counter.Take().double_holders, 0);  // the release was sent: the hold ended

  ProgressCounter other;
  Ops(other)
      .Acquire(0)
      .Client(0, OpType::kInvoke, "client-stats")
      .Client(0, OpType::kInfo, "client-stats")  // 0 is gone, still holding
      .At(500)
      .Acquire(1)  // within 0's lease: two holders
      .At(2000)
      .Acquire(2, "", "lock-0");  // 1 still holds (live): two holders again
  EXPECT_EQ(other.Take().double_holders, 2);

  ProgressCounter expired;
  Ops(expired)
      .Acquire(0)
      .Client(0, OpType::kInvoke, "client-stats")
      .Client(0, OpType::kInfo, "client-stats")
      .At(1500)
      .Acquire(1);  // 0's lease ended at 999 ms: the lock was free
  EXPECT_EQ(expired.Take().double_holders, 0);
}

TEST(ProgressCounterTest, ReadHoldsShareAndAWriteHoldDoesNot) {
  ProgressCounter counter;
  Ops(counter).Acquire(0, "read").Acquire(1, "read");
  EXPECT_EQ(counter.Take().double_holders, 0);
  Ops(counter).Acquire(2, "write");
  EXPECT_EQ(counter.Take().double_holders, 2);
}

TEST(ProgressCounterTest, AReleaseEndsOnlyItsOwnHoldAmongSeveral) {
  ProgressCounter counter;
  Ops ops(counter);
  ops.Acquire(0, "read").Acquire(1, "read").Acquire(2, "read");
  ops.Client(0, OpType::kInvoke, "release");  // the first of three: the last takes its place
  ops.Client(1, OpType::kInvoke, "release");
  ops.Acquire(3, "write");  // over 2 alone
  EXPECT_EQ(counter.Take().double_holders, 1);
  ops.Client(2, OpType::kInvoke, "release").Client(3, OpType::kInvoke, "release");
  ops.Acquire(4, "write");
  EXPECT_EQ(counter.Take().double_holders, 1);
}

TEST(ProgressCounterTest, ACompletedAcquiresLeaseIsNotLentToALaterGrant) {
  ProgressCounter counter;
  Ops ops(counter);
  // 0's acquire completed, so its invoke's 1000 ms lease is spent: a later
  // grant to 0 with no invoke and no validity has no known lease.
  ops.Acquire(0).Client(0, OpType::kInvoke, "release");
  ops.Client(0, OpType::kOk, "acquire", {{"token", "t"}});
  ops.Client(0, OpType::kInvoke, "client-stats").Client(0, OpType::kInfo, "client-stats");
  ops.At(200).Acquire(1);  // 0 is gone, its hold's lease unknown: not counted
  EXPECT_EQ(counter.Take().double_holders, 0);
}

TEST(ProgressCounterTest, RecordsThroughTheInnerRecorderAndCountsAtItsStamp) {
  struct Stamping : OpRecorder {
    OpStamp Record(Op op) override {
      kept.push_back(std::move(op));
      return {41, 7'000'000};
    }
    std::vector<Op> kept;
  } inner;
  ProgressCounter counter(inner);
  Op op;
  op.process = 3;
  op.type = OpType::kOk;
  op.f = "release";
  const OpStamp recorded = counter.Record(op);
  EXPECT_EQ(recorded.index, 41);
  ASSERT_EQ(inner.kept.size(), 1u);
  EXPECT_EQ(inner.kept[0].f, "release");
  EXPECT_EQ(counter.Take().ok, 1);
  // A hold's lease runs from the grant's stamp: 0 granted at 7 ms (its
  // stamp; the op itself says 0) with a 3 ms validity, then gone (info):
  // 1 granted at 9 ms is within it.
  Op grant;
  grant.process = 0;
  grant.type = OpType::kOk;
  grant.f = "acquire";
  grant.key = "lock-0";
  grant.value = {{"token", "t"}, {"validity_ms", 3}};
  counter.Record(grant);
  Op gone;
  gone.process = 0;
  gone.type = OpType::kInfo;
  gone.f = "client-stats";
  counter.Record(gone);
  Ops(counter).At(9).Acquire(1, "", "lock-0");
  EXPECT_EQ(counter.Take().double_holders, 1);
}

}  // namespace
}  // namespace locksmith
