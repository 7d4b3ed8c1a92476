#include "history/lock_ops.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

using nlohmann::json;

Op ClientOp(OpType type, const char* f, json value, int64_t time = 5'000'000'000) {
  return Op{0, time, 1, type, f, "lock-0", std::move(value), ""};
}

TEST(LockOpsTest, NamesAcquiresAndReleasesOfMutexesAndReadWriteLocks) {
  EXPECT_TRUE(IsAcquireOp("acquire"));
  EXPECT_TRUE(IsAcquireOp("acquire-read"));
  EXPECT_FALSE(IsAcquireOp("release"));
  EXPECT_TRUE(IsReleaseOp("release"));
  EXPECT_TRUE(IsReleaseOp("release-write"));
  EXPECT_FALSE(IsReleaseOp("released"));
  EXPECT_FALSE(IsReleaseOp("renew"));
}

TEST(LockOpsTest, AnAcquireRecordsALeaseByItsLeaseOrItsValidity) {
  EXPECT_TRUE(RecordsLease(ClientOp(OpType::kInvoke, "acquire", {{"lease_ms", 2000}})));
  EXPECT_TRUE(RecordsLease(ClientOp(OpType::kOk, "acquire", {{"validity_ms", 1999}})));
  EXPECT_FALSE(RecordsLease(ClientOp(OpType::kOk, "acquire", {{"lease_ms", 2000}})));
  EXPECT_FALSE(RecordsLease(ClientOp(OpType::kInvoke, "release", {{"lease_ms", 2000}})));
}

TEST(LockOpsTest, LockEventsAreLoneClientCompletions) {
  EXPECT_TRUE(IsLockEvent(ClientOp(OpType::kOk, "renew", {{"token", "a"}})));
  EXPECT_FALSE(IsLockEvent(ClientOp(OpType::kInvoke, "renew", {{"token", "a"}})));
  const Op lost = ClientOp(OpType::kOk, "lock-lost", {{"token", "a"}});
  EXPECT_TRUE(IsLockLoss(lost));
  EXPECT_FALSE(IsLockLoss(ClientOp(OpType::kOk, "renew", {{"token", "a"}})));
  EXPECT_EQ(TokenOf(lost), "a");
  EXPECT_EQ(TokenOf(ClientOp(OpType::kOk, "acquire", {{"token", 7}})), "");
}

TEST(LockOpsTest, ALeaseEndsAtTheHoldersReckoningUnlessItIsTheSessions) {
  const Op ok = ClientOp(OpType::kOk, "acquire", {{"validity_ms", 999}}, 1'000);
  EXPECT_EQ(LeaseEndOf(ok), 1'000 + 999 * 1'000'000);
  EXPECT_EQ(LeaseEndOf(ClientOp(OpType::kInvoke, "acquire", {{"validity_ms", 999}})),
            std::nullopt);
  EXPECT_EQ(LeaseEndOf(ClientOp(OpType::kOk, "acquire", {{"validity_ms", int64_t{1} << 50}})),
            std::nullopt);  // absurd: unknown rather than an overflow
  const Op session =
      ClientOp(OpType::kOk, "acquire", {{"validity_ms", 999}, {"session_lease", true}});
  EXPECT_TRUE(HasSessionLease(session));
  EXPECT_EQ(LeaseEndOf(session), std::nullopt);
}

TEST(LockOpsTest, ReadsReentriesCutOffsAndCrashedProcesses) {
  EXPECT_TRUE(IsReentry(ClientOp(OpType::kInvoke, "acquire", {{"reentry", true}})));
  EXPECT_FALSE(IsReentry(ClientOp(OpType::kInvoke, "acquire", {{"reentry", 1}})));
  const Op lost = ClientOp(OpType::kOk, "lock-lost", {{"cut_off_ms", 30}}, 100'000'000);
  EXPECT_EQ(CutOffOf(lost), 70'000'000);
  EXPECT_EQ(CutOffOf(ClientOp(OpType::kOk, "lock-lost", {{"cut_off_ms", -1}})), std::nullopt);
  Op crash{0, 0, kNemesisProcess, OpType::kInfo, "client-crash", "", {{"process", 4}}, ""};
  EXPECT_EQ(CrashedProcessOf(crash), 4);
  crash.error = "could not crash it";
  EXPECT_EQ(CrashedProcessOf(crash), -1);
}

}  // namespace
}  // namespace locksmith
