#include "checker/foreign_release_checker.h"

#include <gtest/gtest.h>

#include "history/testing/history_builder.h"

namespace locksmith {
namespace {

using testing::HistoryBuilder;

const std::string kKey = "lock-0";

// An ok acquire by `process` whose lease, by its own reckoning, lasts
// `validity_ms` (0: over at once; each op here is 1 us apart).
void Acquired(HistoryBuilder& h, int64_t process, int64_t validity_ms,
              nlohmann::json more = nlohmann::json::object()) {
  nlohmann::json value = {{"token", "t" + std::to_string(process)}, {"validity_ms", validity_ms}};
  value.update(more);
  h.Invoke(process, "acquire", {{"lease_ms", 500}}, kKey).Ok(process, value);
}

void ReleaseInvoked(HistoryBuilder& h, int64_t process) {
  h.Invoke(process, "release", {{"token", "t" + std::to_string(process)}}, kKey);
}

CheckResult Check(const HistoryBuilder& h) { return ForeignReleaseChecker().Check(h.Build()); }

TEST(ForeignReleaseCheckerTest, AReleaseAfterTheLeaseEndedRemovesTheNextHoldersLock) {
  // p0's lease ended; p1 got the lock; p0's plain DEL then succeeded.
  HistoryBuilder h;
  Acquired(h, 0, 0);
  Acquired(h, 1, 500);
  ReleaseInvoked(h, 0);
  h.Ok(0);
  ReleaseInvoked(h, 1);
  h.Fail(1);  // its lock was gone
  CheckResult r = Check(h);
  ASSERT_EQ(r.valid, Validity::kFalse) << r.ToJson().dump();
  ASSERT_EQ(r.anomalies.size(), 1u);
  const auto& a = r.anomalies[0];
  EXPECT_EQ(a["type"], "foreign-release");
  EXPECT_EQ(a["key"], kKey);
  EXPECT_EQ(a["releaser"], 0);
  EXPECT_EQ(a["holder"], 1);
  // p0's acquire, p1's acquire, p0's release invoke and completion.
  ASSERT_EQ(a["ops"].size(), 4u);
  EXPECT_EQ(a["ops"][0]["index"], 1);
  EXPECT_EQ(a["ops"][1]["index"], 3);
  EXPECT_EQ(a["ops"][2]["index"], 4);
  EXPECT_EQ(a["ops"][3]["index"], 5);
  EXPECT_EQ(r.stats["foreign_releases"], 1);
  EXPECT_EQ(r.stats["ok_releases"], 1);
}

TEST(ForeignReleaseCheckerTest, AnOwnerCheckedReleaseThatFailedRemovedNothing) {
  HistoryBuilder h;
  Acquired(h, 0, 0);
  Acquired(h, 1, 500);
  ReleaseInvoked(h, 0);
  h.Fail(0);  // compare-and-delete: not ours any more
  ReleaseInvoked(h, 1);
  h.Ok(1);
  EXPECT_EQ(Check(h).valid, Validity::kTrue);
}

TEST(ForeignReleaseCheckerTest, AReleaseWhileItsOwnLeaseWasValidIsNotNamed) {
  // p1 was granted while p0's lease still ran (a split brain): p0 may have
  // removed its own lock on its own master; the double holder is named
  // elsewhere.
  HistoryBuilder h;
  Acquired(h, 0, 60'000);
  Acquired(h, 1, 500);
  ReleaseInvoked(h, 0);
  h.Ok(0);
  EXPECT_EQ(Check(h).valid, Validity::kTrue);
}

TEST(ForeignReleaseCheckerTest, OnlyAHoldGrantedEarlierAndStillOpenCounts) {
  HistoryBuilder h;
  // p1 released before p0's release completed; p2 was granted only after
  // p0's release was invoked; p3 was granted before p0.
  Acquired(h, 3, 0);
  Acquired(h, 0, 0);
  Acquired(h, 1, 500);
  ReleaseInvoked(h, 3);
  ReleaseInvoked(h, 0);
  ReleaseInvoked(h, 1);
  h.Ok(1);
  Acquired(h, 2, 500);
  h.Ok(0);
  h.Fail(3);
  EXPECT_EQ(Check(h).valid, Validity::kTrue) << Check(h).ToJson().dump();
}

TEST(ForeignReleaseCheckerTest, ALockLostNoticeEndsTheOtherHold) {
  HistoryBuilder h;
  Acquired(h, 0, 0);
  Acquired(h, 1, 500);
  ReleaseInvoked(h, 0);
  // p1 was told its lock is gone before p0's release completed.
  h.Event(1, "lock-lost", {{"token", "t1"}}, kKey);
  h.Ok(0);
  EXPECT_EQ(Check(h).valid, Validity::kTrue);
}

TEST(ForeignReleaseCheckerTest, RenewalsAndSessionsKeepTheReleasersLeaseValid) {
  HistoryBuilder renewed;
  Acquired(renewed, 0, 0);
  // p0's watchdog renewed the lease before p1 was granted.
  renewed.Event(0, "renew", {{"token", "t0"}, {"validity_ms", 60'000}}, kKey);
  Acquired(renewed, 1, 500);
  ReleaseInvoked(renewed, 0);
  renewed.Ok(0);
  EXPECT_EQ(Check(renewed).valid, Validity::kTrue);

  HistoryBuilder session;  // ZooKeeper: valid while the session is
  Acquired(session, 0, 0, {{"session_lease", true}});
  Acquired(session, 1, 500);
  ReleaseInvoked(session, 0);
  session.Ok(0);
  EXPECT_EQ(Check(session).valid, Validity::kTrue);
}

TEST(ForeignReleaseCheckerTest, AReentryKeepsTheOuterHoldsGrant) {
  // p0 re-entered its lock after p1 was granted it: the hold is still the
  // one granted before p1's, so p0's release after its lease removed p1's
  // lock. Taken for a new grant, the re-entry would hide that.
  HistoryBuilder h;
  Acquired(h, 0, 0);
  Acquired(h, 1, 500);
  h.Invoke(0, "acquire", {{"lease_ms", 500}, {"reentry", true}}, kKey).Ok(0, {{"token", "t0"}});
  ReleaseInvoked(h, 0);
  h.Ok(0);
  CheckResult r = Check(h);
  ASSERT_EQ(r.valid, Validity::kFalse) << r.ToJson().dump();
  EXPECT_EQ(r.anomalies[0]["holder"], 1);
}

}  // namespace
}  // namespace locksmith
