// Hand-made histories for every model, both verdicts, with pending ops and
// the classic traps.
#include <gtest/gtest.h>

#include "checker/check_file.h"
#include "checker/model.h"
#include "history/testing/history_builder.h"

namespace locksmith {
namespace {

using testing::HistoryBuilder;
using nlohmann::json;

CheckResult Check(const std::string& model, const History& history,
                  std::optional<json> initial = std::nullopt) {
  LinearizabilityOptions options;
  options.model = model;
  options.initial = std::move(initial);
  auto result = CheckLinearizable(history, options);
  EXPECT_TRUE(result.ok()) << result.error();
  return result.ok() ? *result : CheckResult{};
}

Validity Verdict(const std::string& model, const HistoryBuilder& b,
                 std::optional<json> initial = std::nullopt) {
  return Check(model, b.Build(), std::move(initial)).valid;
}

constexpr Validity kValid = Validity::kTrue;
constexpr Validity kInvalid = Validity::kFalse;

// --- mutex (Knossos: any process may release a held lock) ---

TEST(MutexModelTest, SequentialAcquireReleaseIsValid) {
  HistoryBuilder b;
  b.Call(0, "acquire").Call(0, "release").Call(1, "acquire").Call(1, "release");
  EXPECT_EQ(Verdict("mutex", b), kValid);
}

TEST(MutexModelTest, TwoHoldersAreInvalid) {
  HistoryBuilder b;
  b.Call(0, "acquire").Call(1, "acquire").Call(0, "release");
  EXPECT_EQ(Verdict("mutex", b), kInvalid);
}

TEST(MutexModelTest, ConcurrentAcquiresOneFailedIsValid) {
  HistoryBuilder b;
  b.Invoke(0, "acquire").Invoke(1, "acquire").Ok(0).Fail(1).Call(0, "release");
  EXPECT_EQ(Verdict("mutex", b), kValid);
}

TEST(MutexModelTest, TimedOutAcquireThatTookEffectExplainsALaterRelease) {
  // Nobody else acquired, so the release proves the info acquire held.
  HistoryBuilder b;
  b.Invoke(0, "acquire").Info(0).Invoke(1, "acquire").Fail(1).Call(2, "release");
  EXPECT_EQ(Verdict("mutex", b), kValid);
  HistoryBuilder without;
  without.Invoke(1, "acquire").Fail(1).Call(2, "release");
  EXPECT_EQ(Verdict("mutex", without), kInvalid);
}

TEST(MutexModelTest, TimedOutAcquireMayNeverHaveHappened) {
  HistoryBuilder b;
  b.Invoke(0, "acquire").Info(0).Call(1, "acquire").Call(1, "release").Call(2, "acquire");
  EXPECT_EQ(Verdict("mutex", b), kValid);
}

TEST(MutexModelTest, ReleaseByAnotherProcessIsLegal) {
  HistoryBuilder b;
  b.Call(0, "acquire").Call(1, "release");
  EXPECT_EQ(Verdict("mutex", b), kValid);
  EXPECT_EQ(Verdict("owner-mutex", b), kInvalid);
}

// --- owner-mutex ---

TEST(OwnerMutexModelTest, TimedOutAcquireLaterShownToHold) {
  // The same process releases after its acquire timed out: only legal if
  // the acquire took effect.
  HistoryBuilder b;
  b.Invoke(0, "acquire").Info(0).Call(0, "release").Call(1, "acquire");
  EXPECT_EQ(Verdict("owner-mutex", b), kValid);
}

TEST(OwnerMutexModelTest, PendingAcquireOfDeadProcessDoesNotBlockOthers) {
  HistoryBuilder b;
  b.Invoke(0, "acquire").Info(0);
  for (int p = 1; p < 6; ++p) b.Call(p, "acquire").Call(p, "release");
  b.Invoke(9, "acquire");  // never completes
  EXPECT_EQ(Verdict("owner-mutex", b), kValid);
}

TEST(OwnerMutexModelTest, TimedOutReleaseMustHaveTakenEffect) {
  HistoryBuilder b;
  b.Call(0, "acquire").Invoke(0, "release").Info(0).Call(1, "acquire");
  EXPECT_EQ(Verdict("owner-mutex", b), kValid);
}

TEST(OwnerMutexModelTest, AcquireWhileHeldIsInvalidPerKey) {
  HistoryBuilder b;
  b.Call(0, "acquire", nullptr, nullptr, "a")
      .Call(1, "acquire", nullptr, nullptr, "b")  // another key: fine
      .Call(2, "acquire", nullptr, nullptr, "a")  // a still held by 0
      .Call(0, "release", nullptr, nullptr, "a");
  CheckResult r = Check("owner-mutex", b.Build());
  EXPECT_EQ(r.valid, kInvalid);
  ASSERT_EQ(r.anomalies.size(), 1u);
  EXPECT_EQ(r.anomalies[0]["key"], "a");
  EXPECT_EQ(r.stats["partitions"], 2);
}

TEST(OwnerMutexModelTest, ResourceOpsAndNemesisAreIgnored) {
  HistoryBuilder b;
  b.Nemesis("partition-start")
      .Call(0, "acquire", nullptr, nullptr, "lock-0")
      .Call(0, "write", 5, nullptr, "stock")
      .Call(0, "release", nullptr, nullptr, "lock-0")
      .Nemesis("partition-stop");
  CheckResult r = Check("owner-mutex", b.Build());
  EXPECT_EQ(r.valid, kValid);
  EXPECT_EQ(r.stats["ignored_ops"]["write"], 1);
}

// --- fenced-mutex ---

TEST(FencedMutexModelTest, IncreasingFencesAreValid) {
  HistoryBuilder b;
  b.Invoke(0, "acquire").Ok(0, json{{"token", "a"}, {"fence", 3}}).Call(0, "release");
  b.Invoke(1, "acquire").Ok(1, json{{"fence", 7}}).Call(1, "release");
  EXPECT_EQ(Verdict("fenced-mutex", b), kValid);
}

TEST(FencedMutexModelTest, FenceGoingBackwardsIsInvalid) {
  HistoryBuilder b;
  b.Invoke(0, "acquire").Ok(0, json{{"fence", 7}}).Call(0, "release");
  b.Invoke(1, "acquire").Ok(1, json{{"fence", 7}}).Call(1, "release");
  EXPECT_EQ(Verdict("fenced-mutex", b), kInvalid);
  EXPECT_EQ(Verdict("owner-mutex", b), kValid);
}

TEST(FencedMutexModelTest, FencesOrderConcurrentAcquires) {
  // Overlapping attempts: the later fence must be the later holder.
  HistoryBuilder b;
  b.Invoke(0, "acquire").Invoke(1, "acquire").Ok(1, 5).Call(1, "release").Ok(0, 9);
  b.Call(0, "release");
  EXPECT_EQ(Verdict("fenced-mutex", b), kValid);
  HistoryBuilder bad;
  bad.Invoke(0, "acquire").Ok(0, 9).Call(0, "release").Invoke(1, "acquire").Ok(1, 5);
  EXPECT_EQ(Verdict("fenced-mutex", bad), kInvalid);
}

TEST(FencedMutexModelTest, OkAcquireWithoutFenceIsAnError) {
  HistoryBuilder b;
  b.Invoke(0, "acquire").Ok(0, json{{"token", "x"}});
  LinearizabilityOptions options;
  options.model = "fenced-mutex";
  auto r = CheckLinearizable(b.Build(), options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("fence"), std::string::npos) << r.error();
}

// --- rw-lock ---

TEST(RwLockModelTest, SharedHoldersMayOverlap) {
  HistoryBuilder b;
  b.Call(0, "acquire-shared").Call(1, "acquire-shared").Call(0, "release-shared");
  b.Call(1, "release-shared").Call(2, "acquire").Call(2, "release");
  EXPECT_EQ(Verdict("rw-lock", b), kValid);
}

TEST(RwLockModelTest, ExclusiveDuringSharedIsInvalid) {
  HistoryBuilder b;
  b.Call(0, "acquire-shared").Call(1, "acquire").Call(0, "release-shared");
  EXPECT_EQ(Verdict("rw-lock", b), kInvalid);
}

TEST(RwLockModelTest, SharedDuringExclusiveIsInvalid) {
  HistoryBuilder b;
  b.Call(0, "acquire-write").Call(1, "acquire-read");
  EXPECT_EQ(Verdict("rw-lock", b), kInvalid);
}

TEST(RwLockModelTest, ModeReadMakesAcquireAndReleaseShared) {
  // The mutex workload's readers: acquire / release with "mode": "read".
  const json read = {{"mode", "read"}};
  const json write = {{"mode", "write"}};
  HistoryBuilder shared;
  shared.Call(0, "acquire", read).Call(1, "acquire", read).Call(0, "release", read);
  shared.Call(1, "release", read).Call(2, "acquire", write).Call(2, "release", write);
  EXPECT_EQ(Verdict("rw-lock", shared), kValid);
  HistoryBuilder writer_inside;
  writer_inside.Call(0, "acquire", read).Call(1, "acquire", write);
  EXPECT_EQ(Verdict("rw-lock", writer_inside), kInvalid);
}

TEST(RwLockModelTest, ReleaseSharedByNonHolderIsInvalid) {
  HistoryBuilder b;
  b.Call(0, "acquire-shared").Call(1, "release-shared");
  EXPECT_EQ(Verdict("rw-lock", b), kInvalid);
}

// --- register ---

TEST(RegisterModelTest, ReadConcurrentWithTwoWritesMaySeeEither) {
  for (int seen : {1, 2}) {
    HistoryBuilder b;
    b.Call(0, "write", 0).Invoke(1, "write", 1).Invoke(2, "write", 2).Invoke(3, "read");
    b.Ok(1).Ok(2).Ok(3, seen);
    EXPECT_EQ(Verdict("register", b), kValid) << seen;
  }
}

TEST(RegisterModelTest, ReadConcurrentWithTwoWritesCannotSeeAnOverwrittenValue) {
  // write 1 completes before write 2 starts; a read that starts after both
  // finished cannot return 1.
  HistoryBuilder b;
  b.Call(1, "write", 1).Call(2, "write", 2).Invoke(3, "read").Invoke(4, "write", 3);
  b.Ok(3, 1).Ok(4);
  EXPECT_EQ(Verdict("register", b), kInvalid);
}

TEST(RegisterModelTest, StaleReadAfterWriteIsInvalid) {
  HistoryBuilder b;
  b.Call(0, "write", 1).Call(1, "read", nullptr, 1).Call(0, "write", 2).Call(1, "read", nullptr,
                                                                              1);
  EXPECT_EQ(Verdict("register", b), kInvalid);
}

TEST(RegisterModelTest, CasIsRejectedWithAHint) {
  HistoryBuilder b;
  b.Call(0, "cas", json::array({1, 2}));
  LinearizabilityOptions options;
  options.model = "register";
  auto r = CheckLinearizable(b.Build(), options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("cas-register"), std::string::npos) << r.error();
}

// --- cas-register ---

TEST(CasRegisterModelTest, NilInitialValue) {
  HistoryBuilder b;
  b.Call(0, "read", nullptr, nullptr).Call(0, "cas", json::array({nullptr, 1}));
  b.Call(1, "read", nullptr, 1);
  EXPECT_EQ(Verdict("cas-register", b), kValid);
  EXPECT_EQ(Verdict("cas-register", b, json(0)), kInvalid);
}

// Knossos reads an ok read of nil as "value unknown"; Porcupine's etcd
// histories read it as "the key is absent". Both hold: nil is unknown only
// where the register can never hold nil.
TEST(CasRegisterModelTest, NilReadIsUnknownOnlyWhereNilIsNoValue) {
  HistoryBuilder b;
  b.Call(0, "write", 1).Call(1, "read", nullptr, nullptr).Call(1, "read", nullptr, 1);
  EXPECT_EQ(Verdict("cas-register", b, json(0)), kValid);  // Knossos's cas-register 0
  EXPECT_EQ(Verdict("register", b, json(0)), kValid);
  EXPECT_EQ(Verdict("cas-register", b), kInvalid);  // nil is the initial value: absent
  // Once some op writes nil, a read of nil means the register held nil.
  HistoryBuilder writes_nil = b;
  writes_nil.Invoke(2, "write", nullptr).Info(2);
  EXPECT_EQ(Verdict("cas-register", writes_nil, json(0)), kInvalid);
  HistoryBuilder cas_to_nil = b;
  cas_to_nil.Invoke(2, "cas", json::array({5, nullptr})).Fail(2);  // failed: no effect
  cas_to_nil.Invoke(3, "cas", json::array({7, nullptr})).Info(3);
  EXPECT_EQ(Verdict("cas-register", cas_to_nil, json(0)), kInvalid);
  // A known value is still checked.
  b.Call(1, "read", nullptr, 2);
  EXPECT_EQ(Verdict("cas-register", b, json(0)), kInvalid);
}

TEST(CasRegisterModelTest, ConfiguredInitialValue) {
  HistoryBuilder b;
  b.Call(0, "read", nullptr, 0).Call(0, "cas", json::array({0, 4})).Call(1, "read", nullptr, 4);
  EXPECT_EQ(Verdict("cas-register", b, json(0)), kValid);
  EXPECT_EQ(Verdict("cas-register", b), kInvalid);
}

TEST(CasRegisterModelTest, FailedCasDidNotHappen) {
  HistoryBuilder b;
  b.Call(0, "write", 1).Invoke(1, "cas", json::array({1, 2})).Fail(1);
  b.Call(0, "read", nullptr, 1);
  EXPECT_EQ(Verdict("cas-register", b), kValid);
}

TEST(CasRegisterModelTest, OkCasNeedsTheExpectedValue) {
  HistoryBuilder b;
  b.Call(0, "write", 1).Call(1, "cas", json::array({3, 2}));
  EXPECT_EQ(Verdict("cas-register", b), kInvalid);
}

TEST(CasRegisterModelTest, InfoWriteMustBeLinearizedLate) {
  // Process 2's write of 2 never completes; the final read of 2 is only
  // explained by placing it after the write of 3.
  HistoryBuilder b;
  b.Call(0, "write", 1).Invoke(2, "write", 2).Info(2);
  b.Call(1, "read", nullptr, 1).Call(0, "write", 3).Call(1, "read", nullptr, 3);
  b.Call(1, "read", nullptr, 2);
  EXPECT_EQ(Verdict("cas-register", b), kValid);
  // A second read of 3 after that cannot happen: the info write already
  // took its one effect.
  b.Call(1, "read", nullptr, 3);
  EXPECT_EQ(Verdict("cas-register", b), kInvalid);
}

TEST(CasRegisterModelTest, InfoCasMayOrMayNotHaveHappened) {
  HistoryBuilder applied;
  applied.Call(0, "write", 1).Invoke(1, "cas", json::array({1, 5})).Info(1);
  applied.Call(0, "read", nullptr, 5);
  EXPECT_EQ(Verdict("cas-register", applied), kValid);
  HistoryBuilder not_applied;
  not_applied.Call(0, "write", 1).Invoke(1, "cas", json::array({1, 5})).Info(1);
  not_applied.Call(0, "read", nullptr, 1);
  EXPECT_EQ(Verdict("cas-register", not_applied), kValid);
}

TEST(CasRegisterModelTest, TimedOutReadIsAlwaysLegal) {
  HistoryBuilder b;
  b.Call(0, "write", 1).Invoke(1, "read").Info(1).Call(0, "read", nullptr, 1);
  EXPECT_EQ(Verdict("cas-register", b), kValid);
}

TEST(CasRegisterModelTest, ReadCannotTravelBackInTime) {
  HistoryBuilder b;
  b.Call(0, "read", nullptr, 2).Call(1, "write", 2);
  EXPECT_EQ(Verdict("cas-register", b), kInvalid);
}

TEST(CasRegisterModelTest, IndependentTuplesArePartitionedPerKey) {
  HistoryBuilder b;
  b.Call(0, "write", json::array({"x", 1})).Call(1, "write", json::array({"y", 2}));
  b.Call(0, "read", json::array({"x", nullptr}), json::array({"x", 1}));
  b.Call(1, "cas", json::array({"y", json::array({2, 3})}));
  b.Call(2, "read", json::array({"y", nullptr}), json::array({"y", 3}));
  CheckResult r = Check("cas-register", b.Build());
  EXPECT_EQ(r.valid, kValid);
  EXPECT_EQ(r.stats["partitions"], 2);
  EXPECT_EQ(r.stats["independent_keys"], true);
  b.Call(2, "read", json::array({"x", nullptr}), json::array({"x", 3}));
  r = Check("cas-register", b.Build());
  EXPECT_EQ(r.valid, kInvalid);
  ASSERT_EQ(r.anomalies.size(), 1u);
  EXPECT_EQ(r.anomalies[0]["key"], "x");
}

TEST(CasRegisterModelTest, IndependentDetectionIgnoresOpsTheModelDoesNotCheck) {
  HistoryBuilder b;
  b.Call(0, "write", json::array({1, 4})).Call(0, "cas", json::array({1, json::array({4, 0})}));
  b.Call(1, "final-reads", nullptr, json::object());
  b.Call(1, "read", json::array({1, nullptr}), json::array({1, 0}));
  CheckResult r = Check("cas-register", b.Build());
  EXPECT_EQ(r.valid, kValid);
  EXPECT_EQ(r.stats["independent_keys"], true);
  EXPECT_EQ(r.stats["ignored_ops"]["final-reads"], 1);
}

TEST(CasRegisterModelTest, CompletionWithoutTheInvokesKeyIsAnError) {
  HistoryBuilder b;
  b.Call(0, "write", json::array({"x", 1})).Call(1, "write", json::array({"y", 2}));
  b.Call(0, "read", json::array({"x", nullptr}), json::array({"y", 1}));
  LinearizabilityOptions options;
  options.model = "cas-register";
  auto r = CheckLinearizable(b.Build(), options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("no tuple for key x"), std::string::npos) << r.error();
  HistoryBuilder untupled;
  untupled.Call(0, "write", json::array({"x", 1}));
  untupled.Call(0, "read", json::array({"x", nullptr}), 1);
  EXPECT_FALSE(CheckLinearizable(untupled.Build(), options).ok());
}

TEST(CasRegisterModelTest, PlainCasPairsAreNotTakenForTuples) {
  HistoryBuilder b;
  b.Call(0, "write", 1).Call(0, "cas", json::array({1, 2})).Call(1, "read", nullptr, 2);
  CheckResult r = Check("cas-register", b.Build());
  EXPECT_EQ(r.valid, kValid);
  EXPECT_EQ(r.stats["independent_keys"], false);
}

// --- kv ---

TEST(KvModelTest, PutGetAppendPerKey) {
  HistoryBuilder b;
  b.Call(0, "put", "a", nullptr, "k1").Call(1, "append", "b", nullptr, "k1");
  b.Call(0, "get", nullptr, "ab", "k1").Call(0, "append", "1", nullptr, "k2");
  b.Call(1, "append", "2", nullptr, "k2").Call(1, "get", nullptr, "12", "k2");
  EXPECT_EQ(Verdict("kv", b), kValid);
  b.Call(1, "get", nullptr, "21", "k2");
  EXPECT_EQ(Verdict("kv", b), kInvalid);
}

// Issue 6: two appends to a never-written key read back as one string, not
// as a list of the two (Porcupine's kv).
TEST(KvModelTest, AppendsConcatenateFromTheEmptyString) {
  HistoryBuilder b;
  b.Call(0, "get", nullptr, "", "9").Call(0, "append", "x 0 2 y", nullptr, "9");
  b.Call(0, "append", "x 0 5 y", nullptr, "9").Call(0, "get", nullptr, "x 0 2 yx 0 5 y", "9");
  b.Call(0, "put", "x 0 9 y", nullptr, "9").Call(0, "get", nullptr, "x 0 9 y", "9");
  EXPECT_EQ(Verdict("kv", b), kValid);
  HistoryBuilder list;
  list.Call(0, "append", "a", nullptr, "9").Call(0, "get", nullptr, json::array({"a"}), "9");
  LinearizabilityOptions options;
  options.model = "kv";
  auto refused = CheckLinearizable(list.Build(), options);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("must carry a string"), std::string::npos) << refused.error();
}

TEST(KvModelTest, NeverWrittenKeyReadsAsEmptyNotNil) {
  HistoryBuilder b;
  b.Call(0, "get", nullptr, "", "a");
  EXPECT_EQ(Verdict("kv", b), kValid);
  HistoryBuilder appended;
  appended.Call(0, "append", "b", nullptr, "a").Call(0, "get", nullptr, "", "a");
  EXPECT_EQ(Verdict("kv", appended), kInvalid);
  HistoryBuilder nil;
  nil.Call(0, "get", nullptr, nullptr, "a");
  LinearizabilityOptions options;
  options.model = "kv";
  EXPECT_FALSE(CheckLinearizable(nil.Build(), options).ok());
}

TEST(KvModelTest, InitialIsEveryKeysStartingString) {
  HistoryBuilder b;
  b.Call(0, "append", "b", nullptr, "k").Call(0, "get", nullptr, "ab", "k");
  b.Call(0, "get", nullptr, "a", "other");
  EXPECT_EQ(Verdict("kv", b, json("a")), kValid);
  EXPECT_EQ(Verdict("kv", b), kInvalid);
  ValueTable values;
  EXPECT_FALSE(MakeModel("kv", json(3), &values).ok());
}

TEST(KvModelTest, PendingAppendMayOrMayNotHaveHappened) {
  HistoryBuilder b;
  b.Call(0, "append", "a", nullptr, "k").Invoke(1, "append", "b", "k").Info(1);
  b.Call(2, "get", nullptr, "a", "k").Call(2, "get", nullptr, "ab", "k");
  EXPECT_EQ(Verdict("kv", b), kValid);
  b.Call(2, "get", nullptr, "a", "k");  // the append cannot be undone
  EXPECT_EQ(Verdict("kv", b), kInvalid);
}

// --- set ---

TEST(SetModelTest, AddRemoveContainsRead) {
  HistoryBuilder b;
  b.Call(0, "add", 1).Call(1, "add", 2).Call(0, "contains", 2, true).Call(1, "remove", 1);
  b.Call(0, "contains", 1, false).Call(1, "read", nullptr, json::array({2}));
  EXPECT_EQ(Verdict("set", b), kValid);
  b.Call(0, "read", nullptr, json::array({1, 2}));
  EXPECT_EQ(Verdict("set", b), kInvalid);
}

TEST(SetModelTest, PendingAddMayBeSeen) {
  HistoryBuilder b;
  b.Invoke(0, "add", 7).Info(0).Call(1, "contains", 7, true).Call(1, "read", nullptr,
                                                                  json::array({7}));
  EXPECT_EQ(Verdict("set", b), kValid);
}

// --- counter ---

TEST(CounterModelTest, AddsAndReads) {
  HistoryBuilder b;
  b.Call(0, "add", 1).Call(1, "add", 2).Call(0, "read", nullptr, 3);
  EXPECT_EQ(Verdict("counter", b), kValid);
  EXPECT_EQ(Verdict("counter", b, json(10)), kInvalid);
  b.Call(1, "read", nullptr, 2);
  EXPECT_EQ(Verdict("counter", b), kInvalid);
}

TEST(CounterModelTest, IncrementWithoutValueCountsOneAddWithoutValueIsAnError) {
  HistoryBuilder b;
  b.Call(0, "increment").Call(1, "inc").Call(0, "read", nullptr, 2);
  EXPECT_EQ(Verdict("counter", b), kValid);
  HistoryBuilder add;
  add.Call(0, "add").Call(0, "read", nullptr, 1);
  LinearizabilityOptions options;
  options.model = "counter";
  auto r = CheckLinearizable(add.Build(), options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("integer"), std::string::npos) << r.error();
}

TEST(SetModelTest, ReadListingAnElementTwiceMatchesNoSet) {
  HistoryBuilder b;
  b.Call(0, "add", 2).Call(0, "read", nullptr, json::array({2, 2}));
  EXPECT_EQ(Verdict("set", b), kInvalid);
  HistoryBuilder unordered;
  unordered.Call(0, "add", 2).Call(0, "add", 1).Call(0, "read", nullptr, json::array({2, 1}));
  EXPECT_EQ(Verdict("set", unordered), kValid);
}

TEST(CounterModelTest, PendingAddsCountIfNeeded) {
  HistoryBuilder b;
  b.Invoke(0, "add", 5).Info(0).Invoke(1, "add", 5).Info(1).Call(2, "read", nullptr, 0);
  b.Call(2, "read", nullptr, 5).Call(2, "read", nullptr, 10);
  EXPECT_EQ(Verdict("counter", b), kValid);
  b.Call(2, "read", nullptr, 15);
  EXPECT_EQ(Verdict("counter", b), kInvalid);
}

}  // namespace
}  // namespace locksmith
