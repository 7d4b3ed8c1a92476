#include "checker/double_holder.h"

#include <gtest/gtest.h>

#include <limits>

namespace locksmith {
namespace {

constexpr int64_t kMs = 1'000'000;

// Builds histories by hand; times are in ms for readability.
class Builder {
 public:
  Builder& Invoke(int64_t p, int64_t ms, const std::string& f, nlohmann::json value = nullptr) {
    return Add(p, ms, OpType::kInvoke, f, std::move(value));
  }
  Builder& Ok(int64_t p, int64_t ms, const std::string& f, nlohmann::json value = nullptr) {
    return Add(p, ms, OpType::kOk, f, std::move(value));
  }
  Builder& Fail(int64_t p, int64_t ms, const std::string& f) {
    return Add(p, ms, OpType::kFail, f, nullptr);
  }
  Builder& Info(int64_t p, int64_t ms, const std::string& f, nlohmann::json value = nullptr) {
    return Add(p, ms, OpType::kInfo, f, std::move(value));
  }
  // acquire ok with the given token and validity, lease 1000 ms.
  Builder& Acquired(int64_t p, int64_t from, int64_t to, const std::string& token,
                    int64_t validity_ms = 1000) {
    Invoke(p, from, "acquire", {{"lease_ms", 1000}});
    return Ok(p, to, "acquire", {{"token", token}, {"validity_ms", validity_ms}});
  }
  // A read-write lock's acquire ok: "mode" is "read" (shared) or "write".
  Builder& AcquiredAs(const char* mode, int64_t p, int64_t from, int64_t to,
                      const std::string& token, int64_t validity_ms = 1000) {
    Invoke(p, from, "acquire", {{"lease_ms", 1000}, {"mode", mode}});
    return Ok(p, to, "acquire", {{"token", token}, {"validity_ms", validity_ms}});
  }
  Builder& Released(int64_t p, int64_t from, int64_t to, const std::string& token) {
    Invoke(p, from, "release", {{"token", token}});
    return Ok(p, to, "release");
  }
  const History& history() const { return h_; }

  Builder& Add(int64_t p, int64_t ms, OpType type, const std::string& f, nlohmann::json value) {
    Op op;
    op.index = static_cast<int64_t>(h_.size());
    op.time = ms * kMs;
    op.process = p;
    op.type = type;
    op.f = f;
    op.key = key_;
    op.value = std::move(value);
    h_.push_back(std::move(op));
    return *this;
  }

 private:
  History h_;
  std::string key_ = "lock-0";
};

CheckResult Check(const Builder& b) { return DoubleHolderChecker().Check(b.history()); }

TEST(DoubleHolderTest, SequentialHoldsAreValid) {
  Builder b;
  b.Acquired(0, 0, 1, "a").Released(0, 10, 11, "a").Acquired(1, 11, 12, "b").Released(1, 20, 21, "b");
  auto r = Check(b);
  EXPECT_EQ(r.valid, Validity::kTrue);
  EXPECT_TRUE(r.anomalies.empty());
  EXPECT_EQ(r.stats["holds"], 2);
}

TEST(DoubleHolderTest, OverlappingValidLeasesAreAnUnsafeGrant) {
  Builder b;
  b.Acquired(0, 0, 1, "a").Acquired(1, 5, 6, "b").Released(0, 10, 11, "a").Released(1, 12, 13, "b");
  auto r = Check(b);
  ASSERT_EQ(r.valid, Validity::kFalse);
  ASSERT_EQ(r.anomalies.size(), 1u);
  const auto& a = r.anomalies[0];
  EXPECT_EQ(a["class"], "unsafe-grant");
  EXPECT_EQ(a["key"], "lock-0");
  EXPECT_EQ(a["holders"][0]["process"], 0);
  EXPECT_EQ(a["holders"][1]["process"], 1);
  // The proof names both acquires' completions (indices 1 and 3).
  EXPECT_EQ(a["ops"][0]["index"], 1);
  EXPECT_EQ(a["ops"][1]["index"], 3);
  EXPECT_EQ(a["overlap_ns"][0], 6 * kMs);
  EXPECT_EQ(a["overlap_ns"][1], 10 * kMs);
}

TEST(DoubleHolderTest, HolderPastItsValidityIsExpiredLeaseUse) {
  Builder b;
  // Process 0's lease ends at 1 + 100 ms; it keeps holding until 500 ms.
  b.Acquired(0, 0, 1, "a", 100).Acquired(1, 200, 201, "b").Released(0, 500, 501, "a")
      .Released(1, 600, 601, "b");
  auto r = Check(b);
  ASSERT_EQ(r.valid, Validity::kFalse);
  ASSERT_EQ(r.anomalies.size(), 1u);
  EXPECT_EQ(r.anomalies[0]["class"], "expired-lease-use");
  EXPECT_EQ(r.stats["expired_lease_uses"], 1);
  EXPECT_EQ(r.stats["unsafe_grants"], 0);
}

TEST(DoubleHolderTest, FailedAcquireIsNotAHold) {
  Builder b;
  b.Acquired(0, 0, 1, "a").Invoke(1, 2, "acquire").Fail(1, 3, "acquire").Released(0, 10, 11, "a");
  EXPECT_EQ(Check(b).valid, Validity::kTrue);
}

TEST(DoubleHolderTest, InfoAcquireIsOnlyAPossibleHold) {
  Builder b;
  b.Invoke(0, 0, "acquire", {{"lease_ms", 1000}}).Info(0, 5, "acquire", {{"token", "a"}})
      .Acquired(1, 10, 11, "b").Released(1, 20, 21, "b");
  auto r = Check(b);
  EXPECT_EQ(r.valid, Validity::kTrue);
  EXPECT_EQ(r.stats["possible_overlaps"], 1);
  EXPECT_TRUE(r.anomalies.empty());
}

TEST(DoubleHolderTest, InfoAcquireLaterReleasedOkProvesTheHoldDuringTheRelease) {
  Builder b;
  // Process 0's acquire timed out, but its token was still there to release
  // at 30-31 ms (by the worker's next process, 2), while process 1 held the
  // lock from 11 to 40 ms: two holders at 30-31 ms.
  b.Invoke(0, 0, "acquire", {{"lease_ms", 1000}}).Info(0, 5, "acquire", {{"token", "a"}})
      .Acquired(1, 10, 11, "b").Released(2, 30, 31, "a").Released(1, 40, 41, "b");
  auto r = Check(b);
  ASSERT_EQ(r.valid, Validity::kFalse);
  ASSERT_EQ(r.anomalies.size(), 1u);
  EXPECT_EQ(r.anomalies[0]["holders"][0]["process"], 1);
  EXPECT_EQ(r.anomalies[0]["holders"][1]["process"], 0);
}

TEST(DoubleHolderTest, ATimedOutAcquireMayHaveRunLateSoAnEarlierHoldIsOnlyPossible) {
  Builder b;
  // The timed-out SET may have run at 20 ms, after process 1 released at
  // 15 ms: a legal order exists, so this is no violation.
  b.Invoke(0, 0, "acquire", {{"lease_ms", 1000}}).Info(0, 5, "acquire", {{"token", "a"}})
      .Acquired(1, 10, 11, "b").Released(1, 15, 16, "b").Released(2, 30, 31, "a");
  auto r = Check(b);
  EXPECT_EQ(r.valid, Validity::kTrue) << r.ToJson().dump();
  EXPECT_TRUE(r.anomalies.empty());
}

TEST(DoubleHolderTest, HugeLeasesDoNotOverflow) {
  Builder b;
  b.Invoke(0, 0, "acquire", {{"lease_ms", 1000}})
      .Ok(0, 1, "acquire", {{"token", "a"}, {"validity_ms", std::numeric_limits<int64_t>::max()}})
      .Acquired(1, 5, 6, "b");
  auto r = Check(b);
  ASSERT_EQ(r.valid, Validity::kFalse);
  // A lease too long to represent counts as never running out.
  EXPECT_EQ(r.anomalies[0]["class"], "unsafe-grant");
}

TEST(DoubleHolderTest, DifferentKeysNeverConflict) {
  History h;
  auto add = [&](int64_t p, int64_t ms, OpType t, const std::string& f, const std::string& key) {
    Op op;
    op.index = static_cast<int64_t>(h.size());
    op.time = ms * kMs;
    op.process = p;
    op.type = t;
    op.f = f;
    op.key = key;
    op.value = {{"token", key + std::to_string(p)}, {"validity_ms", 1000}};
    h.push_back(op);
  };
  add(0, 0, OpType::kInvoke, "acquire", "x");
  add(0, 1, OpType::kOk, "acquire", "x");
  add(1, 2, OpType::kInvoke, "acquire", "y");
  add(1, 3, OpType::kOk, "acquire", "y");
  add(0, 9, OpType::kInvoke, "release", "x");
  add(1, 9, OpType::kInvoke, "release", "y");
  EXPECT_EQ(DoubleHolderChecker().Check(h).valid, Validity::kTrue);
}

TEST(DoubleHolderTest, UnreleasedHoldStaysOpenToTheEnd) {
  Builder b;
  b.Acquired(0, 0, 1, "a").Acquired(1, 5000, 5001, "b");
  auto r = Check(b);
  ASSERT_EQ(r.valid, Validity::kFalse);
  EXPECT_TRUE(r.anomalies[0]["overlap_ns"][1].is_null());
  EXPECT_EQ(r.anomalies[0]["class"], "expired-lease-use");
}

TEST(DoubleHolderTest, ListsAtMostTheCapButCountsAll) {
  Builder b;
  b.Acquired(0, 0, 1, "a");
  for (int p = 1; p <= 5; ++p) {
    // Not "t" + std::to_string(p): GCC 12 at -O3 reports a bogus -Wrestrict
    // on a literal plus a temporary string.
    std::string token = "t";
    token += std::to_string(p);
    b.Acquired(p, 10 * p, 10 * p + 1, token);
  }
  auto r = DoubleHolderChecker(3).Check(b.history());
  EXPECT_EQ(r.anomalies.size(), 3u);
  EXPECT_EQ(r.stats["double_holders"], 15);  // every pair of 6 open holds
}


// Lock events and re-entries (checker/leased_lock_checker.h).
namespace events {

// A renewal event of process p at `ms` (lone op, no invoke).
void Renewed(Builder& b, int64_t p, int64_t ms, const std::string& token, int64_t validity_ms) {
  b.Ok(p, ms, "renew", {{"token", token}, {"validity_ms", validity_ms}});
}

TEST(DoubleHolderEventsTest, ARenewalExtendsTheLeaseFromWhenTheHolderLearntOfIt) {
  // p0's acquire gives a lease to 1001 ms; renewals at 300 and 900 push it
  // to 1900. p1 acquires at 1500 while p0 still holds: with the renewals
  // both leases were valid, so the service broke mutual exclusion.
  Builder b;
  b.Acquired(0, 0, 1, "a");
  Renewed(b, 0, 300, "a", 1000);
  Renewed(b, 0, 900, "a", 1000);
  b.Acquired(1, 1499, 1500, "b").Released(0, 1600, 1601, "a");
  CheckResult r = Check(b);
  EXPECT_EQ(r.valid, Validity::kFalse);
  EXPECT_EQ(r.stats["unsafe_grants"], 1);
  ASSERT_EQ(r.anomalies.size(), 1u);
  EXPECT_EQ(r.anomalies[0]["holders"][0]["lease_end"], 1900 * kMs);
  EXPECT_EQ(r.anomalies[0]["holders"][0]["renewals"], 2);
}

TEST(DoubleHolderEventsTest, WithoutTheRenewalsTheSameOverlapIsAnExpiredLeaseUse) {
  Builder b;
  b.Acquired(0, 0, 1, "a").Acquired(1, 1499, 1500, "b").Released(0, 1600, 1601, "a");
  CheckResult r = Check(b);
  EXPECT_EQ(r.stats["expired_lease_uses"], 1);
  EXPECT_EQ(r.stats["unsafe_grants"], 0);
}

TEST(DoubleHolderEventsTest, OnlyRenewalsKnownWhenTheOverlapBeganCount) {
  // The renewal at 1700 came after p1's acquire at 1500: at 1500 p0's lease
  // (to 1001) had expired by its own reckoning.
  Builder b;
  b.Acquired(0, 0, 1, "a").Acquired(1, 1499, 1500, "b");
  Renewed(b, 0, 1700, "a", 1000);
  b.Released(0, 1800, 1801, "a");
  EXPECT_EQ(Check(b).stats["expired_lease_uses"], 1);
}

TEST(DoubleHolderEventsTest, FailedOrUnknownRenewalsAndOtherTokensExtendNothing) {
  Builder b;
  b.Acquired(0, 0, 1, "a");
  b.Info(0, 300, "renew", {{"token", "a"}});
  b.Add(0, 600, OpType::kFail, "renew", {{"token", "a"}});
  Renewed(b, 0, 900, "another-token", 1000);
  b.Acquired(1, 1499, 1500, "b").Released(0, 1600, 1601, "a");
  EXPECT_EQ(Check(b).stats["expired_lease_uses"], 1);
}

TEST(DoubleHolderEventsTest, ALockLostNoticeEndsTheHold) {
  // p0 is told at 1200 that its lock is gone and never releases; p1's
  // acquire at 1500 overlaps nothing.
  Builder b;
  b.Acquired(0, 0, 1, "a");
  b.Ok(0, 1200, "lock-lost", {{"token", "a"}});
  b.Acquired(1, 1499, 1500, "b").Released(1, 1600, 1601, "b");
  CheckResult r = Check(b);
  EXPECT_EQ(r.valid, Validity::kTrue) << r.anomalies.dump();
  EXPECT_EQ(r.stats["holds"], 2);
}

TEST(DoubleHolderEventsTest, AnAcquireBeforeTheNoticeStillOverlapsTheHoldUntilIt) {
  // The lease expired while p0 stalled (no renewal); p1 acquired at 1500;
  // p0 learnt of the loss only at 2500: p0 acted as holder past its lease.
  Builder b;
  b.Acquired(0, 0, 1, "a").Acquired(1, 1499, 1500, "b");
  b.Ok(0, 2500, "lock-lost", {{"token", "a"}});
  b.Released(1, 2600, 2601, "b");
  CheckResult r = Check(b);
  EXPECT_EQ(r.stats["expired_lease_uses"], 1);
  ASSERT_EQ(r.anomalies.size(), 1u);
  EXPECT_EQ(r.anomalies[0]["overlap_ns"][1], 2500 * kMs);
  EXPECT_TRUE(r.anomalies[0]["holders"][0].contains("lock_lost"));
}

TEST(DoubleHolderEventsTest, ARenewalDuringAPauseOpDoesNotCompleteThePause) {
  // The pause's invoke is open when the renewal lands: the renewal is a lone
  // op, the pause completes with its own completion, the hold is intact.
  Builder b;
  b.Acquired(0, 0, 1, "a");
  b.Invoke(0, 100, "pause", {{"ms", 500}});
  Renewed(b, 0, 300, "a", 1000);
  b.Ok(0, 600, "pause", {{"ms", 500}});
  b.Acquired(1, 1199, 1200, "b").Released(0, 1300, 1301, "a");
  CheckResult r = Check(b);
  EXPECT_EQ(r.stats["unsafe_grants"], 1);
}

TEST(DoubleHolderEventsTest, ReentriesAreNestedInTheOuterHold) {
  // p0 re-enters its own lock and gives the re-entry back; the outer hold
  // stays the hold until the outer release, and p1 acquires after it.
  Builder b;
  b.Acquired(0, 0, 1, "a");
  b.Invoke(0, 10, "acquire", {{"lease_ms", 1000}, {"reentry", true}});
  b.Ok(0, 11, "acquire", {{"token", "a"}, {"validity_ms", 1000}});
  b.Invoke(0, 20, "release", {{"token", "a"}, {"reentry", true}}).Ok(0, 21, "release");
  b.Released(0, 30, 31, "a").Acquired(1, 40, 41, "b").Released(1, 50, 51, "b");
  CheckResult r = Check(b);
  EXPECT_EQ(r.valid, Validity::kTrue) << r.anomalies.dump();
  EXPECT_EQ(r.stats["holds"], 2);
}

TEST(DoubleHolderEventsTest, AReentryRefreshesTheLeaseLikeARenewal) {
  Builder b;
  b.Acquired(0, 0, 1, "a");
  b.Invoke(0, 800, "acquire", {{"lease_ms", 1000}, {"reentry", true}});
  b.Ok(0, 801, "acquire", {{"token", "a"}, {"validity_ms", 1000}});
  b.Acquired(1, 1499, 1500, "b").Released(0, 1600, 1601, "a");
  EXPECT_EQ(Check(b).stats["unsafe_grants"], 1);
}

}  // namespace events

// --- the rw-lock checker: the same rules, readers share ---

CheckResult CheckRw(const Builder& b) {
  return DoubleHolderChecker(1000, HoldModes::kReadWrite).Check(b.history());
}

TEST(RwLockCheckerTest, IsNamedRwLock) {
  EXPECT_EQ(DoubleHolderChecker(1000, HoldModes::kReadWrite).Name(), "rw-lock");
  EXPECT_EQ(DoubleHolderChecker().Name(), "double-holder");
}

TEST(RwLockCheckerTest, OverlappingReadersAreValidAndCounted) {
  Builder b;
  b.AcquiredAs("read", 0, 0, 1, "a").AcquiredAs("read", 1, 2, 3, "b");
  b.AcquiredAs("read", 2, 4, 5, "c");
  b.Released(0, 10, 11, "a").Released(1, 12, 13, "b").Released(2, 14, 15, "c");
  auto r = CheckRw(b);
  EXPECT_EQ(r.valid, Validity::kTrue);
  EXPECT_TRUE(r.anomalies.empty());
  EXPECT_EQ(r.stats["reader_overlaps"], 3);  // every pair of the three
  EXPECT_EQ(r.stats["read_holds"], 3);
  EXPECT_EQ(r.stats["write_holds"], 0);
  EXPECT_EQ(r.stats["double_holders"], 0);
}

TEST(RwLockCheckerTest, TheExclusiveCheckerFlagsTheSameReaders) {
  // The double-holder checker knows no modes: every hold excludes.
  Builder b;
  b.AcquiredAs("read", 0, 0, 1, "a").AcquiredAs("read", 1, 2, 3, "b");
  b.Released(0, 10, 11, "a").Released(1, 12, 13, "b");
  EXPECT_EQ(Check(b).valid, Validity::kFalse);
  EXPECT_EQ(Check(b).stats.count("reader_overlaps"), 0u);
}

TEST(RwLockCheckerTest, ReadersThatNeverOverlapCountZero) {
  // What a lock that is secretly exclusive looks like: valid, no sharing.
  Builder b;
  b.AcquiredAs("read", 0, 0, 1, "a").Released(0, 10, 11, "a");
  b.AcquiredAs("read", 1, 11, 12, "b").Released(1, 20, 21, "b");
  b.AcquiredAs("write", 2, 21, 22, "c").Released(2, 30, 31, "c");
  auto r = CheckRw(b);
  EXPECT_EQ(r.valid, Validity::kTrue);
  EXPECT_EQ(r.stats["reader_overlaps"], 0);
  EXPECT_EQ(r.stats["write_holds"], 1);
}

TEST(RwLockCheckerTest, AWriterOverlappingAReaderIsAnUnsafeGrantNamingBoth) {
  Builder b;
  b.AcquiredAs("read", 0, 0, 1, "a").AcquiredAs("write", 1, 5, 6, "b");
  b.Released(0, 10, 11, "a").Released(1, 12, 13, "b");
  auto r = CheckRw(b);
  ASSERT_EQ(r.valid, Validity::kFalse);
  ASSERT_EQ(r.anomalies.size(), 1u);
  const auto& a = r.anomalies[0];
  EXPECT_EQ(a["class"], "unsafe-grant");
  EXPECT_EQ(a["holders"][0]["mode"], "read");
  EXPECT_EQ(a["holders"][1]["mode"], "write");
  // The acquires' completions (1, 3) and the releases' invokes (4, 6).
  ASSERT_EQ(a["ops"].size(), 4u);
  EXPECT_EQ(a["ops"][0]["index"], 1);
  EXPECT_EQ(a["ops"][1]["index"], 3);
  EXPECT_EQ(a["ops"][2]["index"], 4);
  EXPECT_EQ(a["ops"][3]["index"], 6);
  EXPECT_EQ(r.stats["reader_overlaps"], 0);
}

TEST(RwLockCheckerTest, TwoWritersOverlappingAreInvalid) {
  Builder b;
  b.AcquiredAs("write", 0, 0, 1, "a").AcquiredAs("write", 1, 5, 6, "b");
  b.Released(0, 10, 11, "a").Released(1, 12, 13, "b");
  auto r = CheckRw(b);
  ASSERT_EQ(r.valid, Validity::kFalse);
  EXPECT_EQ(r.anomalies[0]["holders"][0]["mode"], "write");
  EXPECT_EQ(r.stats["unsafe_grants"], 1);
}

TEST(RwLockCheckerTest, AnAcquireWithoutModeIsAWriter) {
  Builder b;
  b.AcquiredAs("read", 0, 0, 1, "a").Acquired(1, 5, 6, "b");
  b.Released(0, 10, 11, "a").Released(1, 12, 13, "b");
  EXPECT_EQ(CheckRw(b).valid, Validity::kFalse);
}

TEST(RwLockCheckerTest, AReaderPastItsLeaseUnderAWriterIsAnExpiredLeaseUse) {
  // The reader's validity (100 ms) ended before the writer got the lock:
  // the lease rules of the double-holder checker, unchanged.
  Builder b;
  b.AcquiredAs("read", 0, 0, 1, "a", 100).AcquiredAs("write", 1, 500, 501, "b");
  b.Released(0, 900, 901, "a").Released(1, 950, 951, "b");
  auto r = CheckRw(b);
  ASSERT_EQ(r.valid, Validity::kFalse);
  EXPECT_EQ(r.anomalies[0]["class"], "expired-lease-use");
  EXPECT_EQ(r.stats["expired_lease_uses"], 1);
}

TEST(RwLockCheckerTest, AnInfoReaderOverlapIsOnlyPossible) {
  // A read acquire that timed out may never have happened: its overlap with
  // another reader proves no sharing, and with a writer proves no anomaly.
  Builder b;
  b.AcquiredAs("read", 0, 0, 1, "a");
  b.Invoke(1, 2, "acquire", {{"lease_ms", 1000}, {"mode", "read"}}).Info(1, 50, "acquire");
  b.AcquiredAs("write", 2, 20, 21, "c");
  b.Released(0, 30, 31, "a").Released(2, 40, 41, "c");
  auto r = CheckRw(b);
  EXPECT_EQ(r.stats["reader_overlaps"], 0);
  EXPECT_EQ(r.stats["possible_reader_overlaps"], 1);
  EXPECT_EQ(r.stats["possible_overlaps"], 1);
  // The certain reader and the writer still overlap.
  EXPECT_EQ(r.valid, Validity::kFalse);
  EXPECT_EQ(r.stats["double_holders"], 1);
}

}  // namespace
}  // namespace locksmith

namespace locksmith {
namespace {

// A ZooKeeper acquire ok: valid while the session is; validity_ms is only
// what the session was sure to last at the grant.
void SessionAcquired(Builder& b, int64_t p, int64_t at, const std::string& token) {
  b.Invoke(p, at - 1, "acquire", {{"lease_ms", 1000}});
  b.Ok(p, at, "acquire", {{"token", token}, {"validity_ms", 900}, {"session_lease", true}});
}

TEST(DoubleHolderSessionTest, TwoLiveUnawareSessionsOverlappingAreAnUnsafeGrant) {
  // Both sessions alive and never cut off, p0 holding past what its session
  // was sure to last at the grant: the service granted the lock twice.
  Builder b;
  SessionAcquired(b, 0, 1, "a");
  SessionAcquired(b, 1, 3000, "b");
  b.Released(0, 3100, 3101, "a").Released(1, 3200, 3201, "b");
  CheckResult r = Check(b);
  EXPECT_EQ(r.stats["unsafe_grants"], 1) << r.anomalies.dump();
  EXPECT_EQ(r.stats["expired_lease_uses"], 0);
  ASSERT_EQ(r.anomalies.size(), 1u);
  EXPECT_EQ(r.anomalies[0]["class"], "unsafe-grant");
  EXPECT_EQ(r.anomalies[0]["holders"][0]["session_lease"], true);
  EXPECT_FALSE(r.anomalies[0]["holders"][0].contains("lease_end"));
}

TEST(DoubleHolderSessionTest, AHolderWhoseSessionWasCutOffBeforeTheGrantIsAnExpiredLeaseUse) {
  // p0's session was cut off at 1000 (it stalled past its session timeout);
  // p1 got the lock at 2500; p0 learnt of the loss at 4000.
  Builder b;
  SessionAcquired(b, 0, 1, "a");
  SessionAcquired(b, 1, 2500, "b");
  b.Ok(0, 4000, "lock-lost", {{"token", "a"}, {"cut_off_ms", 3000}});
  b.Released(1, 4100, 4101, "b");
  CheckResult r = Check(b);
  EXPECT_EQ(r.stats["expired_lease_uses"], 1) << r.anomalies.dump();
  EXPECT_EQ(r.stats["unsafe_grants"], 0);
  ASSERT_EQ(r.anomalies.size(), 1u);
  EXPECT_EQ(r.anomalies[0]["holders"][0]["lease_end"], 1000 * kMs);
}

TEST(DoubleHolderSessionTest, ACutOffAfterTheGrantLeavesAnUnsafeGrant) {
  // p0 was cut off only at 3000, after p1's grant at 2500: both sessions
  // were alive and unaware when the lock was granted twice.
  Builder b;
  SessionAcquired(b, 0, 1, "a");
  SessionAcquired(b, 1, 2500, "b");
  b.Ok(0, 4000, "lock-lost", {{"token", "a"}, {"cut_off_ms", 1000}});
  b.Released(1, 4100, 4101, "b");
  EXPECT_EQ(Check(b).stats["unsafe_grants"], 1);
}

// Long histories: the pass drops closed holds once nothing open can overlap
// them (every 1024 ops); what it must still judge after thousands of ops.

// `n` holds of 1 ms by processes 1 and 2 in turn, from `from_ms`, none
// overlapping: the bulk of a long history.
void SequentialHolds(Builder& b, int64_t from_ms, int n) {
  for (int i = 0; i < n; ++i) {
    const int64_t t = from_ms + 4 * i;
    const std::string token = "s" + std::to_string(i);
    b.Acquired(1 + i % 2, t, t + 1, token);
    b.Released(1 + i % 2, t + 2, t + 3, token);
  }
}

TEST(DoubleHolderLongHistoryTest, AnInfoAcquireProvenThousandsOfOpsLaterIsJudgedOverItsRelease) {
  Builder b;
  b.Invoke(9, 0, "acquire", {{"lease_ms", 1000}});
  b.Info(9, 5, "acquire", {{"token", "t"}});  // possible: [0, 1000 ms]
  SequentialHolds(b, 2000, 3000);             // 12,000 ops after it, none overlapping it
  const int64_t t = 2000 + 4 * 3000;
  b.Acquired(3, t, t + 1, "p3");
  b.Released(4, t + 2, t + 3, "t");  // proves p9 held it within [t + 2, t + 3]
  b.Released(3, t + 10, t + 11, "p3");
  CheckResult r = Check(b);
  EXPECT_EQ(r.stats["holds"], 3002);
  EXPECT_EQ(r.stats["double_holders"], 1) << r.anomalies.dump();
  EXPECT_EQ(r.stats["possible_overlaps"], 0);
  ASSERT_EQ(r.anomalies.size(), 1u);
  EXPECT_EQ(r.anomalies[0]["holders"][0]["process"], 3);
  EXPECT_EQ(r.anomalies[0]["holders"][1]["process"], 9);
}

TEST(DoubleHolderLongHistoryTest, AHoldClosedEarlyIsKeptWhileAnOverlappingHoldStaysOpen) {
  Builder b;
  b.Acquired(7, 0, 1, "p7");
  b.Acquired(8, 4, 5, "p8");  // granted over p7's hold, released thousands of ops later
  b.Released(7, 10, 11, "p7");
  SequentialHolds(b, 20, 3000);
  b.Released(8, 20 + 4 * 3000, 21 + 4 * 3000, "p8");
  CheckResult r = Check(b);
  EXPECT_EQ(r.stats["double_holders"], 3001);  // p7 and every sequential hold
  ASSERT_FALSE(r.anomalies.empty());
  EXPECT_EQ(r.anomalies[0]["holders"][0]["process"], 7);
  EXPECT_EQ(r.anomalies[0]["holders"][1]["process"], 8);
}

TEST(DoubleHolderLongHistoryTest, AnInfoAcquireWithNoLeaseMayOverlapEveryLaterHold) {
  Builder b;
  b.Invoke(9, 0, "acquire");
  b.Info(9, 5, "acquire");  // no lease, no token: possible from 0 on
  SequentialHolds(b, 10, 3000);
  CheckResult r = Check(b);
  EXPECT_EQ(r.valid, Validity::kTrue);
  EXPECT_EQ(r.stats["possible_overlaps"], 3000);
  EXPECT_EQ(r.stats["double_holders"], 0);
}

TEST(DoubleHolderLongHistoryTest, TheFirstListedOverlapsAreTheEarliestWhateverCloseFirst) {
  // Fifteen overlaps after a long history (p5 with each of five holders,
  // which also overlap each other), the later ones acquired first; two are
  // listed: the two that start first, both with p5.
  Builder b;
  SequentialHolds(b, 0, 2000);
  const int64_t t = 4 * 2000 + 100;
  b.Acquired(5, t, t + 1, "long");  // overlaps all five below
  for (int i = 0; i < 5; ++i) {
    const int64_t at = t + 100 - 10 * i;  // later ones acquired first
    b.Acquired(10 + i, at - 1, at, "x" + std::to_string(i));
  }
  for (int i = 0; i < 5; ++i) b.Released(10 + i, t + 200 + i, t + 201 + i, "x" + std::to_string(i));
  b.Released(5, t + 300, t + 301, "long");
  const History& h = b.history();
  CheckResult r = DoubleHolderChecker(2).Check(h);
  EXPECT_EQ(r.stats["double_holders"], 15);
  ASSERT_EQ(r.anomalies.size(), 2u);
  EXPECT_EQ(r.anomalies[0]["holders"][0]["process"], 5);
  EXPECT_EQ(r.anomalies[1]["holders"][0]["process"], 5);
  EXPECT_EQ(r.anomalies[0]["holders"][1]["process"], 14);  // acquired at t + 60
  EXPECT_EQ(r.anomalies[1]["holders"][1]["process"], 13);  // at t + 70
}

}  // namespace
}  // namespace locksmith
