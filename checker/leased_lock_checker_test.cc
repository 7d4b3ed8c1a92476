#include "checker/leased_lock_checker.h"

#include <gtest/gtest.h>

#include "checker/check_file.h"

namespace locksmith {
namespace {

Op MakeOp(int64_t p, OpType t, const std::string& f) {
  static int64_t index = 0;
  Op op;
  op.index = index;
  op.time = 1'000'000 * index++;
  op.process = p;
  op.type = t;
  op.f = f;
  op.key = "lock-0";
  return op;
}

std::unique_ptr<Checker> OwnerMutex() {
  LinearizabilityOptions o;
  o.model = "owner-mutex";
  return MakeLinearizabilityChecker(o);
}

// A acquires; its release is never sent (server down); the lease expires and
// B acquires.
History ExpiredAfterFailedRelease() {
  return {MakeOp(0, OpType::kInvoke, "acquire"), MakeOp(0, OpType::kOk, "acquire"),
          MakeOp(0, OpType::kInvoke, "release"), MakeOp(0, OpType::kFail, "release"),
          MakeOp(1, OpType::kInvoke, "acquire"), MakeOp(1, OpType::kOk, "acquire")};
}

TEST(LeasedLockCheckerTest, PlainMutexModelCallsAnExpiredLockADoubleGrant) {
  EXPECT_EQ(OwnerMutex()->Check(ExpiredAfterFailedRelease()).valid, Validity::kFalse);
}

TEST(LeasedLockCheckerTest, AFailedReleaseMayExpireLater) {
  LeasedLockChecker checker(OwnerMutex());
  auto r = checker.Check(ExpiredAfterFailedRelease());
  EXPECT_EQ(r.valid, Validity::kTrue) << r.ToJson().dump();
  EXPECT_EQ(checker.Name(), OwnerMutex()->Name());
}

TEST(LeasedLockCheckerTest, AcquiringWhileTheHolderHasNotReleasedIsStillInvalid) {
  // B acquires before A even tries to release: no expiry explains it.
  History h{MakeOp(0, OpType::kInvoke, "acquire"), MakeOp(0, OpType::kOk, "acquire"),
            MakeOp(1, OpType::kInvoke, "acquire"), MakeOp(1, OpType::kOk, "acquire"),
            MakeOp(0, OpType::kInvoke, "release"), MakeOp(0, OpType::kFail, "release")};
  EXPECT_EQ(LeasedLockChecker(OwnerMutex()).Check(h).valid, Validity::kFalse);
}

TEST(LeasedLockCheckerTest, RewritesOnlyFailedReleases) {
  History h = ExpiredAfterFailedRelease();
  h.push_back(MakeOp(2, OpType::kInvoke, "acquire"));
  h.push_back(MakeOp(2, OpType::kFail, "acquire"));
  History r = LeasedLockChecker::ExpireFailedReleases(h);
  EXPECT_EQ(r[3].type, OpType::kInfo);
  EXPECT_EQ(r[7].type, OpType::kFail);
  EXPECT_EQ(r[1].type, OpType::kOk);
}

}  // namespace
}  // namespace locksmith
