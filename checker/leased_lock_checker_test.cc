#include "checker/leased_lock_checker.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "checker/check_file.h"
#include "history/testing/history_builder.h"

namespace locksmith {
namespace {

using nlohmann::json;
using testing::HistoryBuilder;

LinearizabilityOptions Options(const std::string& model, LeaseRule leases = LeaseRule::kAuto) {
  LinearizabilityOptions o;
  o.model = model;
  o.leases = leases;
  return o;
}

// As locksmith's mutex workload records it: process 0 acquires with a
// lease, its release is never sent (the server is down), the lease expires
// and process 1 acquires.
History ExpiredAfterFailedRelease(bool record_leases = true) {
  const json lease = record_leases ? json{{"lease_ms", 2000}} : json();
  const json granted =
      record_leases ? json{{"token", "a"}, {"validity_ms", 1999}} : json{{"token", "a"}};
  HistoryBuilder b;
  b.Invoke(0, "acquire", lease, "lock-0").Ok(0, granted);
  b.Invoke(0, "release", {{"token", "a"}}, "lock-0").Fail(0);
  b.Invoke(1, "acquire", lease, "lock-0").Ok(1, granted);
  return b.Build();
}

TEST(LeaseRuleTest, RecognisesHistoriesThatRecordLeases) {
  EXPECT_TRUE(HistoryRecordsLeases(ExpiredAfterFailedRelease()));
  EXPECT_FALSE(HistoryRecordsLeases(ExpiredAfterFailedRelease(/*record_leases=*/false)));
  EXPECT_FALSE(HistoryRecordsLeases({}));
  // Only the completion says so (a lease granted by the service).
  HistoryBuilder ok_only;
  ok_only.Invoke(0, "acquire", nullptr, "l").Ok(0, {{"validity_ms", 10}});
  EXPECT_TRUE(HistoryRecordsLeases(ok_only.Build()));
  // A failed acquire's value proves nothing, nor does a non-number, nor a
  // register write that happens to carry the field.
  HistoryBuilder not_leases;
  not_leases.Invoke(0, "acquire", nullptr, "l").Fail(0);
  not_leases.Invoke(1, "acquire", {{"lease_ms", "long"}}, "l").Fail(1);
  not_leases.Call(2, "write", {{"lease_ms", 5}});
  EXPECT_FALSE(HistoryRecordsLeases(not_leases.Build()));
}

TEST(LeaseRuleTest, OnOffForceItAndAutoFollowsTheHistory) {
  const History leased = ExpiredAfterFailedRelease();
  const History plain = ExpiredAfterFailedRelease(false);
  EXPECT_TRUE(LeaseRuleApplies(LeaseRule::kAuto, leased));
  EXPECT_FALSE(LeaseRuleApplies(LeaseRule::kAuto, plain));
  EXPECT_TRUE(LeaseRuleApplies(LeaseRule::kOn, plain));
  EXPECT_FALSE(LeaseRuleApplies(LeaseRule::kOff, leased));
  for (const char* name : {"auto", "on", "off"}) {
    auto rule = ParseLeaseRule(name);
    ASSERT_TRUE(rule.ok());
    EXPECT_EQ(LeaseRuleName(*rule), name);
  }
  auto bad = ParseLeaseRule("sometimes");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("auto, on or off"), std::string::npos) << bad.error();
}

// The same small history through every way of checking it.
TEST(LeaseRuleTest, AFailedReleaseInALeasedHistoryMayExpireLater) {
  const History h = ExpiredAfterFailedRelease();
  for (const char* model : {"owner-mutex", "mutex", "rw-lock"}) {
    const LinearizabilityOptions o = Options(model);
    auto r = CheckLinearizable(h, o);
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(r->valid, Validity::kTrue) << model << ": " << FormatLinearizabilityVerdict(*r);
    EXPECT_EQ(r->stats["leases"]["applied"], true);
    EXPECT_EQ(r->stats["leases"]["failed_releases"], 1);
    // The run lifecycle's Checker is the same function.
    EXPECT_EQ(MakeLinearizabilityChecker(o)->Check(h).valid, Validity::kTrue) << model;
    EXPECT_NE(FormatLinearizabilityVerdict(*r).find("1 failed release(s) counted as leases"),
              std::string::npos);
  }
}

TEST(LeaseRuleTest, OffOrNoLeasesRecordedJudgesTheLockAsStillHeld) {
  auto off =
      CheckLinearizable(ExpiredAfterFailedRelease(), Options("owner-mutex", LeaseRule::kOff));
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(off->valid, Validity::kFalse);
  EXPECT_EQ(off->stats["leases"]["applied"], false);
  auto plain = CheckLinearizable(ExpiredAfterFailedRelease(false), Options("owner-mutex"));
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->valid, Validity::kFalse);
  EXPECT_NE(FormatLinearizabilityVerdict(*plain).find("--leases on"), std::string::npos)
      << FormatLinearizabilityVerdict(*plain);
  auto on =
      CheckLinearizable(ExpiredAfterFailedRelease(false), Options("owner-mutex", LeaseRule::kOn));
  ASSERT_TRUE(on.ok());
  EXPECT_EQ(on->valid, Validity::kTrue);
}

TEST(LeaseRuleTest, AcquiringWhileTheHolderHasNotReleasedIsStillInvalid) {
  // Process 1 acquires before process 0 even tries to release: no expiry
  // explains it.
  HistoryBuilder b;
  b.Invoke(0, "acquire", {{"lease_ms", 2000}}, "l").Ok(0, {{"validity_ms", 1999}});
  b.Invoke(1, "acquire", {{"lease_ms", 2000}}, "l").Ok(1, {{"validity_ms", 1999}});
  b.Invoke(0, "release", nullptr, "l").Fail(0);
  auto r = CheckLinearizable(b.Build(), Options("owner-mutex"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->valid, Validity::kFalse);
  EXPECT_EQ(r->stats["leases"]["applied"], true);
}

TEST(LeaseRuleTest, RewritesOnlyFailedClientReleases) {
  HistoryBuilder b;
  b.Invoke(0, "acquire", nullptr, "l").Ok(0);
  b.Invoke(0, "release", nullptr, "l").Fail(0);
  b.Invoke(1, "acquire", nullptr, "l").Fail(1);
  b.Invoke(2, "release-shared", nullptr, "l").Fail(2);
  b.Invoke(3, "release", nullptr, "l").Ok(3);
  const History h = b.Build();
  EXPECT_EQ(CountFailedReleases(h), 2);
  const History r = ApplyLeaseRule(h);  // no lock lost: the releases alone
  ASSERT_EQ(r.size(), h.size());
  EXPECT_EQ(r[1].type, OpType::kOk);
  EXPECT_EQ(r[3].type, OpType::kInfo);
  EXPECT_NE(r[3].error.find("lease expires"), std::string::npos);
  EXPECT_EQ(r[5].type, OpType::kFail);
  EXPECT_EQ(r[7].type, OpType::kInfo);
  EXPECT_EQ(r[9].type, OpType::kOk);
}

// p0 acquires lock-0; its watchdog renews it; p0 stalls, the lease expires,
// p1 acquires; p0's next renewal finds the key gone and p0 is told so; p1
// releases. `lost_before_acquire`: the notice comes before p1's acquire.
History LostLock(bool lost_before_acquire) {
  HistoryBuilder b;
  b.Invoke(0, "acquire", {{"lease_ms", 1000}}, "lock-0").Ok(0, {{"token", "a"}, {"validity_ms", 999}});
  b.Invoke(0, "pause", {{"ms", 3000}}, "lock-0");
  Op renew;
  renew.process = 0;
  renew.type = OpType::kOk;
  renew.f = "renew";
  renew.key = "lock-0";
  renew.value = {{"token", "a"}, {"validity_ms", 999}};
  Op lost = renew;
  lost.f = "lock-lost";
  lost.value = {{"token", "a"}};
  History h = b.Build();
  h.push_back(renew);
  h.push_back([&] {
    Op done = h[2];
    done.type = OpType::kOk;
    return done;
  }());
  if (lost_before_acquire) h.push_back(lost);
  HistoryBuilder rest;
  rest.Invoke(1, "acquire", {{"lease_ms", 1000}}, "lock-0").Ok(1, {{"token", "b"}, {"validity_ms", 999}});
  rest.Invoke(1, "release", {{"token", "b"}}, "lock-0").Ok(1);
  for (const Op& op : rest.Build()) h.push_back(op);
  if (!lost_before_acquire) h.insert(h.begin() + static_cast<long>(h.size()) - 2, lost);
  for (size_t i = 0; i < h.size(); ++i) {
    h[i].index = static_cast<int64_t>(i);
    h[i].time = static_cast<int64_t>(i) * 1000;
  }
  return h;
}

TEST(LockEventsTest, RecognisesEventsReentriesAndLeaseEnds) {
  const History h = LostLock(true);
  EXPECT_FALSE(IsLockEvent(h[0]));
  EXPECT_TRUE(IsLockEvent(h[3]));  // renew
  EXPECT_TRUE(IsLockEvent(h[5]));  // lock-lost
  EXPECT_EQ(TokenOf(h[5]), "a");
  EXPECT_EQ(LeaseEndOf(h[3]), h[3].time + 999 * 1'000'000);
  EXPECT_EQ(LeaseEndOf(h[0]), std::nullopt);  // an invoke grants nothing
  EXPECT_EQ(CountLockLosses(h), 1);
  Op nested = h[0];
  nested.value["reentry"] = true;
  EXPECT_TRUE(IsReentry(nested));
  EXPECT_FALSE(IsReentry(h[0]));
}

TEST(LockEventsTest, ALockLostBecomesAReleaseOfItsHolderAtItsTime) {
  const History h = LostLock(true);
  const History rewritten = ApplyLeaseRule(h);  // no failed release: the loss alone
  ASSERT_EQ(rewritten.size(), h.size() + 1);
  EXPECT_EQ(rewritten[5].type, OpType::kInvoke);
  EXPECT_EQ(rewritten[5].f, "release");
  EXPECT_EQ(rewritten[5].process, 0);
  EXPECT_EQ(rewritten[5].time, h[5].time);
  EXPECT_EQ(rewritten[6].type, OpType::kOk);
  EXPECT_EQ(rewritten[6].value["lock_lost"], true);
}

TEST(LockEventsTest, AHolderToldItLostTheLockHoldsItNoLonger) {
  // The holder was told before p1 acquired: linearizable, and valid for the
  // double holder too; without the lease rule the lock stays p0's.
  auto r = CheckLinearizable(LostLock(true), Options("owner-mutex"));
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->valid, Validity::kTrue) << r->anomalies.dump();
  EXPECT_EQ(r->stats["leases"]["lock_losses"], 1);
  auto off = CheckLinearizable(LostLock(true), Options("owner-mutex", LeaseRule::kOff));
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(off->valid, Validity::kFalse);
}

TEST(LockEventsTest, AnAcquireBeforeTheNoticeIsStillInvalid) {
  auto r = CheckLinearizable(LostLock(false), Options("owner-mutex"));
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->valid, Validity::kFalse);
}

TEST(LockEventsTest, ReentriesAreLegalOnlyForTheHolder) {
  HistoryBuilder b;
  b.Invoke(0, "acquire", {{"lease_ms", 1000}}, "lock-0").Ok(0, {{"token", "a"}, {"validity_ms", 9}});
  b.Invoke(0, "acquire", {{"lease_ms", 1000}, {"reentry", true}}, "lock-0")
      .Ok(0, {{"token", "a"}, {"validity_ms", 9}});
  b.Invoke(0, "release", {{"token", "a"}, {"reentry", true}}, "lock-0").Ok(0);
  b.Invoke(0, "release", {{"token", "a"}}, "lock-0").Ok(0);
  b.Invoke(1, "acquire", {{"lease_ms", 1000}}, "lock-0").Ok(1, {{"token", "b"}, {"validity_ms", 9}});
  b.Invoke(1, "release", {{"token", "b"}}, "lock-0").Ok(1);
  for (const char* model : {"owner-mutex", "mutex"}) {
    auto r = CheckLinearizable(b.Build(), Options(model));
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(r->valid, Validity::kTrue) << model << r->anomalies.dump();
  }
  // A "re-entry" by a process that does not hold the lock is a violation.
  HistoryBuilder bad;
  bad.Invoke(0, "acquire", {{"lease_ms", 1000}}, "lock-0").Ok(0, {{"token", "a"}});
  bad.Invoke(1, "acquire", {{"lease_ms", 1000}, {"reentry", true}}, "lock-0").Ok(1, {{"token", "b"}});
  auto r = CheckLinearizable(bad.Build(), Options("owner-mutex"));
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->valid, Validity::kFalse);
}

TEST(LockEventsTest, LoneEventsPairWithNoInvoke) {
  const History h = LostLock(true);
  const auto completion_of = PairCompletions(h);
  EXPECT_EQ(completion_of[0], 1);  // acquire
  EXPECT_EQ(completion_of[2], 4);  // the pause, past the renewal at 3
  // No invoke takes the renewal or the lock-lost event as its completion.
  for (size_t i = 0; i < h.size(); ++i) {
    if (h[i].f != "renew" && h[i].f != "lock-lost") continue;
    EXPECT_EQ(std::count(completion_of.begin(), completion_of.end(), static_cast<int64_t>(i)), 0)
        << h[i].f << " at " << i;
  }
}

}  // namespace
}  // namespace locksmith
