#include "checker/leased_lock_checker.h"

#include <gtest/gtest.h>

#include "checker/check_file.h"
#include "checker/testing/history_builder.h"

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
  const History r = ExpireFailedReleases(h);
  ASSERT_EQ(r.size(), h.size());
  EXPECT_EQ(r[1].type, OpType::kOk);
  EXPECT_EQ(r[3].type, OpType::kInfo);
  EXPECT_NE(r[3].error.find("lease expires"), std::string::npos);
  EXPECT_EQ(r[5].type, OpType::kFail);
  EXPECT_EQ(r[7].type, OpType::kInfo);
  EXPECT_EQ(r[9].type, OpType::kOk);
}

}  // namespace
}  // namespace locksmith
