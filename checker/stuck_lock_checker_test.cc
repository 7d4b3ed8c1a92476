#include "checker/stuck_lock_checker.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

const std::string kKey = "item-0";
constexpr int64_t kLease = 500;  // ms

// Ops at given times (ms), in order.
class Timeline {
 public:
  Timeline& Acquire(int64_t ms, int64_t process, OpType outcome) {
    Add(ms, process, OpType::kInvoke, "acquire", {{"lease_ms", kLease}});
    if (outcome != OpType::kInvoke) Add(ms + 1, process, outcome, "acquire", nullptr);
    return *this;
  }
  Timeline& Release(int64_t ms, int64_t process) {
    Add(ms, process, OpType::kInvoke, "release", nullptr);
    Add(ms + 1, process, OpType::kOk, "release", nullptr);
    return *this;
  }
  Timeline& Crash(int64_t ms, int64_t process) {
    Op invoke;
    invoke.process = kNemesisProcess;
    invoke.f = "client-crash";
    invoke.value = nlohmann::json::object();
    Push(ms, invoke);
    invoke.type = OpType::kInfo;
    invoke.value = {{"process", process}, {"key", kKey}, {"crashed", 1}};
    Push(ms, invoke);
    return *this;
  }
  // Failed acquires by `process` every 50 ms in [from, to).
  Timeline& Refused(int64_t from, int64_t to, int64_t process) {
    for (int64_t t = from; t < to; t += 50) Acquire(t, process, OpType::kFail);
    return *this;
  }
  const History& Build() const { return history_; }

 private:
  void Add(int64_t ms, int64_t process, OpType type, const char* f, nlohmann::json value) {
    Op op;
    op.process = process;
    op.type = type;
    op.f = f;
    op.key = kKey;
    op.value = std::move(value);
    Push(ms, op);
  }
  void Push(int64_t ms, Op op) {
    op.index = static_cast<int64_t>(history_.size());
    op.time = ms * 1'000'000;
    history_.push_back(std::move(op));
  }
  History history_;
};

TEST(StuckLockCheckerTest, ALockLeftByACrashedAcquireIsStuck) {
  Timeline t;
  t.Acquire(0, 1, OpType::kOk).Release(100, 1);
  t.Acquire(200, 2, OpType::kInvoke).Crash(210, 2);  // SETNX won, PEXPIRE never sent
  t.Refused(250, 3000, 3);
  CheckResult r = StuckLockChecker(3).Check(t.Build());
  ASSERT_EQ(r.valid, Validity::kFalse) << r.ToJson().dump();
  ASSERT_EQ(r.anomalies.size(), 1u);
  const nlohmann::json& a = r.anomalies[0];
  EXPECT_EQ(a["type"], "stuck-lock");
  EXPECT_EQ(a["class"], "crashed-acquirer");
  EXPECT_EQ(a["key"], kKey);
  EXPECT_EQ(a["window"]["from_ms"], 100);  // the last release
  EXPECT_EQ(a["window"]["granted_again"], false);
  EXPECT_GT(a["stuck_ms"].get<int64_t>(), 3 * kLease);
  EXPECT_EQ(a["last_grant"]["process"], 1);
  ASSERT_EQ(a["crashed"].size(), 1u);
  EXPECT_EQ(a["crashed"][0]["process"], 2);
  EXPECT_EQ(a["crashed"][0]["acquire"]["type"], "invoke");
  EXPECT_EQ(a["crashed"][0]["crash"]["f"], "client-crash");
  EXPECT_NE(r.summary.find("stuck"), std::string::npos);
}

TEST(StuckLockCheckerTest, ALockThatExpiresAndIsAcquiredAgainIsNotStuck) {
  Timeline t;
  t.Acquire(0, 1, OpType::kOk).Release(100, 1);
  // The crashed client's lock had a TTL: refused for about a lease, then granted.
  t.Acquire(200, 2, OpType::kInvoke).Crash(210, 2);
  t.Refused(250, 700, 3);
  t.Acquire(720, 3, OpType::kOk).Release(800, 3);
  t.Refused(900, 1000, 4);  // a short wait later is not stuck either
  CheckResult r = StuckLockChecker(3).Check(t.Build());
  EXPECT_EQ(r.valid, Validity::kTrue) << r.ToJson().dump();
  EXPECT_EQ(r.stats["free_windows_with_failures"], 2);
}

TEST(StuckLockCheckerTest, ALiveHolderPastItsLeaseIsNotAStuckLock) {
  Timeline t;
  // Process 1 holds for 4 s (a pause past its lease): others are refused
  // all that time, but a live client held the lock.
  t.Acquire(0, 1, OpType::kOk);
  t.Refused(50, 4000, 2);
  t.Release(4000, 1);
  t.Acquire(4100, 2, OpType::kOk).Release(4200, 2);
  CheckResult r = StuckLockChecker(3).Check(t.Build());
  EXPECT_EQ(r.valid, Validity::kTrue) << r.ToJson().dump();
}

TEST(StuckLockCheckerTest, ACrashedHolderIsNotLiveAndTheThresholdIsTheOption) {
  Timeline t;
  t.Acquire(0, 1, OpType::kOk);
  t.Crash(100, 1);  // a holder that crashed: its hold no longer counts
  t.Refused(150, 1500, 2);
  const CheckResult stuck = StuckLockChecker(2).Check(t.Build());
  ASSERT_EQ(stuck.valid, Validity::kFalse);
  ASSERT_EQ(stuck.anomalies[0]["crashed"].size(), 1u);
  EXPECT_EQ(stuck.anomalies[0]["crashed"][0]["acquire"]["type"], "ok");  // it held the lock
  EXPECT_EQ(StuckLockChecker(3).Check(t.Build()).valid, Validity::kTrue);  // 1.4 s < 1.5 s
}

TEST(StuckLockCheckerTest, ARefusalNoCrashExplainsIsCountedNotJudged) {
  // A paused or cut-off server refuses everyone for seconds with nobody
  // holding the lock: the service was down, not the lock stuck.
  Timeline t;
  t.Acquire(0, 1, OpType::kOk).Release(100, 1);
  t.Refused(150, 5000, 2);
  t.Acquire(5100, 2, OpType::kOk).Release(5200, 2);
  CheckResult r = StuckLockChecker(3).Check(t.Build());
  EXPECT_EQ(r.valid, Validity::kTrue) << r.ToJson().dump();
  EXPECT_EQ(r.stats["refused_without_a_crash"], 1);
  EXPECT_GT(r.stats["longest_refused_without_a_crash_ms"].get<int64_t>(), 3 * kLease);
}

TEST(StuckLockCheckerTest, AcquiresWithoutLeaseAreCountedNotJudged) {
  History h;
  for (int i = 0; i < 40; ++i) {
    Op op;
    op.index = i;
    op.time = int64_t{i} * 100'000'000;
    op.process = 1;
    op.type = i % 2 == 0 ? OpType::kInvoke : OpType::kFail;
    op.f = "acquire";
    op.key = kKey;
    h.push_back(op);
  }
  CheckResult r = StuckLockChecker(1).Check(h);
  EXPECT_EQ(r.valid, Validity::kTrue);
  EXPECT_EQ(r.stats["windows_without_lease"], 1);
}

}  // namespace
}  // namespace locksmith
