#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <random>

#include "checker/linearizability_checker.h"
#include "history/testing/history_builder.h"

namespace locksmith {
namespace {

using testing::HistoryBuilder;

// What must not depend on whether the keys were checked together or one at
// a time: all but the search's timings.
nlohmann::json Judgement(const CheckResult& r) {
  nlohmann::json j = r.ToJson();
  j["stats"].erase("time_s");
  j["stats"].erase("peak_memory_bytes");
  return j;
}

CheckResult Streamed(const Checker& checker, const History& history) {
  HistoryOpStream stream(history);
  auto result = CheckStream(checker, stream);
  EXPECT_TRUE(result) << result.error();
  return result ? *result : CheckResult();
}

LinearizabilityChecker OwnerMutex() {
  LinearizabilityOptions options;
  options.model = "owner-mutex";
  return LinearizabilityChecker(options);
}

TEST(LinearizabilityPassTest, KeysCheckedOneAtATimeJudgeAsTogether) {
  HistoryBuilder b;
  for (int i = 0; i < 5; ++i) {
    b.Invoke(0, "acquire", nullptr, "a").Ok(0).Invoke(0, "release", nullptr, "a").Ok(0);
  }
  // b is granted twice with no release between: not linearizable.
  b.Invoke(1, "acquire", nullptr, "b").Ok(1).Invoke(2, "acquire", nullptr, "b").Ok(2);
  b.Invoke(3, "client-stats").Ok(3, {{"calls", 2}});
  const History& history = b.Build();
  const LinearizabilityChecker checker = OwnerMutex();
  const CheckResult whole = checker.Check(history);
  EXPECT_EQ(whole.valid, Validity::kFalse);
  EXPECT_EQ(whole.stats["partitions"], 2);
  EXPECT_EQ(Judgement(Streamed(checker, history)), Judgement(whole));
}

TEST(LinearizabilityPassTest, NothingToJudgeAndNoModelledOpAsTogether) {
  const LinearizabilityChecker checker = OwnerMutex();
  const History refused =
      HistoryBuilder().Invoke(0, "acquire", nullptr, "a").Fail(0).Build();
  const CheckResult whole = checker.Check(refused);
  EXPECT_EQ(whole.valid, Validity::kUnknown);
  EXPECT_EQ(Judgement(Streamed(checker, refused)), Judgement(whole));
  const History stats_only = HistoryBuilder().Invoke(0, "client-stats").Ok(0).Build();
  const CheckResult none = checker.Check(stats_only);
  EXPECT_EQ(none.valid, Validity::kUnknown);
  EXPECT_EQ(Streamed(checker, stats_only).ToJson(), none.ToJson());
}

// Many keys, each a long run of one process's acquire and release: easy
// to search, and all of them together take far longer to read and search
// than `timeout_s`. Generated as it is read, so no history is held.
class ManyEasyKeys : public OpStream {
 public:
  ManyEasyKeys(int keys, int cycles_per_key) : keys_(keys), cycles_(cycles_per_key) {}
  Result<bool> Next(Op* op) override {
    if (next_ >= int64_t{keys_} * cycles_ * 4) return false;
    const int64_t cycle = next_ / 4 / keys_;
    const int key = static_cast<int>(next_ / 4 % keys_);
    const int step = static_cast<int>(next_ % 4);  // acquire invoke, ok, release invoke, ok
    *op = Op();
    op->index = next_;
    op->time = next_ * 1000;
    op->process = key;
    op->type = step % 2 == 0 ? OpType::kInvoke : OpType::kOk;
    op->f = step < 2 ? "acquire" : "release";
    op->key = "k" + std::to_string(key);
    op->value = {{"token", std::to_string(cycle)}};
    ++next_;
    return true;
  }
  Status Rewind() override {
    next_ = 0;
    return OkStatus();
  }
  const std::vector<SkippedLine>& skipped() const override { return skipped_; }

 private:
  const int keys_, cycles_;
  int64_t next_ = 0;
  std::vector<SkippedLine> skipped_;
};

// A random lock history on key "k" of `processes` processes: acquires and
// releases that complete ok, fail or info, or never (left open, or
// abandoned by another invoke of their process), renewals between them,
// locks lost or not, leases recorded or not, every grant with a fence; with
// `double_grants`, now and then an acquire is granted while another
// process holds the lock. Without `pending`, every op completes ok or fail
// and no lock is lost: the key is quiet now and then, where a streamed
// check may cut it into segments.
History RandomLockHistory(uint64_t seed, bool double_grants, bool pending = true) {
  std::mt19937_64 rng(seed);
  auto chance = [&](int percent) { return static_cast<int>(rng() % 100) < percent; };
  const int processes = 2 + static_cast<int>(rng() % 5);
  const bool leases = chance(50), losses = chance(50);
  HistoryBuilder b;
  std::map<int64_t, std::string> open;  // process -> f of its open op
  int64_t holder = -1, fence = 0;
  for (int step = 0; step < 300; ++step) {
    const int64_t p = static_cast<int64_t>(rng() % static_cast<uint64_t>(processes));
    auto it = open.find(p);
    if (it == open.end() && holder == p && pending && losses && chance(5)) {  // lock gone
      b.Event(p, "lock-lost", {{"token", std::to_string(p)}}, "k");
      holder = -1;
      continue;
    }
    if (it == open.end() || (pending && chance(3))) {  // a new op (abandoning an open one)
      const std::string f = holder == p ? "release" : "acquire";
      nlohmann::json value = nlohmann::json::object();
      if (f == "acquire" && leases) value["lease_ms"] = 1000;
      if (f == "release") value["token"] = std::to_string(p);
      b.Invoke(p, f, value, "k");
      open[p] = f;
      continue;
    }
    const std::string f = it->second;
    open.erase(it);
    if (pending && chance(10)) {
      b.Info(p);  // took effect or not: here, not
    } else if (f == "acquire") {
      if (holder == -1 || (double_grants && chance(2))) {
        holder = p;
        nlohmann::json granted = {{"token", std::to_string(p)}, {"fence", ++fence}};
        if (leases) granted["validity_ms"] = 900;
        b.Ok(p, granted);
        if (chance(20)) b.Event(p, "renew", {{"token", std::to_string(p)}}, "k");
      } else {
        b.Fail(p, {{"error", "busy"}});
      }
    } else if (chance(5)) {
      b.Fail(p);  // a failed release: the lease rule's business
    } else {
      holder = -1;
      b.Ok(p);
    }
  }
  return b.Build();
}

TEST(LinearizabilityPassTest, StreamedKeyCheckJudgesAsTheWholeKey) {
  int refuted = 0, valid = 0;
  for (const std::string model : {"owner-mutex", "mutex", "fenced-mutex", "rw-lock"}) {
    for (uint64_t seed = 0; seed < 40; ++seed) {
      const History history = RandomLockHistory(seed, seed % 3 == 0);
      LinearizabilityOptions options;
      options.model = model;
      bool whole_nothing = false, streamed_nothing = true;
      auto whole = CheckLinearizableKey(history, options, &whole_nothing);
      HistoryOpStream stream(history);
      auto streamed = CheckLinearizableKeyStream(stream, "k", options, streamed_nothing);
      ASSERT_EQ(whole.ok(), streamed.ok()) << model << " seed " << seed;
      if (!whole) {
        EXPECT_EQ(streamed.error(), whole.error());
        continue;
      }
      EXPECT_EQ(Judgement(*streamed), Judgement(*whole)) << model << " seed " << seed;
      EXPECT_EQ(streamed_nothing, whole_nothing) << model << " seed " << seed;
      refuted += whole->valid == Validity::kFalse ? 1 : 0;
      valid += whole->valid == Validity::kTrue ? 1 : 0;
    }
  }
  // Both kinds of verdict were compared.
  EXPECT_GT(refuted, 10);
  EXPECT_GT(valid, 10);
}

// The verdict of a key, without what depends on how its search was cut.
nlohmann::json VerdictOnly(const CheckResult& r) {
  nlohmann::json j = Judgement(r);
  for (const char* stat : {"segments", "states_explored", "distinct_keys"}) j["stats"].erase(stat);
  return j;
}

TEST(LinearizabilityPassTest, KeySearchedInSegmentsJudgesAsTheWholeKey) {
  int refuted = 0, valid = 0, cut = 0;
  for (const std::string model : {"owner-mutex", "mutex", "fenced-mutex", "rw-lock"}) {
    for (uint64_t seed = 0; seed < 40; ++seed) {
      const History history = RandomLockHistory(seed, seed % 3 == 0, seed % 4 == 0);
      LinearizabilityOptions options;
      options.model = model;
      options.segment_ops = 1 + seed % 5;
      bool whole_nothing = false, streamed_nothing = true;
      auto whole = CheckLinearizableKey(history, options, &whole_nothing);
      HistoryOpStream stream(history);
      auto streamed = CheckLinearizableKeyStream(stream, "k", options, streamed_nothing);
      ASSERT_TRUE(whole) << whole.error();
      ASSERT_TRUE(streamed) << streamed.error();
      EXPECT_EQ(VerdictOnly(*streamed), VerdictOnly(*whole)) << model << " seed " << seed;
      EXPECT_EQ(streamed_nothing, whole_nothing) << model << " seed " << seed;
      refuted += whole->valid == Validity::kFalse ? 1 : 0;
      valid += whole->valid == Validity::kTrue ? 1 : 0;
      cut += streamed->stats["segments"].get<int64_t>() > 1 ? 1 : 0;
    }
  }
  // Both kinds of verdict were compared, and keys were cut.
  EXPECT_GT(refuted, 10);
  EXPECT_GT(valid, 10);
  EXPECT_GT(cut, 40);
}

// One key's check, streamed, with segments of `segment_ops` ops at least.
CheckResult StreamedKey(const History& history, size_t segment_ops) {
  LinearizabilityOptions options;
  options.model = "owner-mutex";
  options.segment_ops = segment_ops;
  HistoryOpStream stream(history);
  bool nothing = true;
  auto result = CheckLinearizableKeyStream(stream, "k", options, nothing);
  EXPECT_TRUE(result) << result.error();
  return result ? *result : CheckResult();
}

TEST(LinearizabilityPassTest, EachSegmentGoesOnFromWhereTheOneBeforeEnded) {
  // Process 0 holds the lock across each quiet moment where a cut falls: its
  // releases are legal only in the state the ops before them left.
  HistoryBuilder b;
  for (int i = 0; i < 3; ++i) {
    b.Invoke(0, "acquire", nullptr, "k").Ok(0).Invoke(1, "acquire", nullptr, "k").Fail(1);
    b.Invoke(0, "release", nullptr, "k").Ok(0);
  }
  const CheckResult held = StreamedKey(b.Build(), 1);
  EXPECT_EQ(held.valid, Validity::kTrue) << held.reason;
  EXPECT_EQ(held.stats["segments"], 6);
  // Granted to process 1 while process 0 holds it, one segment later.
  const History twice = HistoryBuilder()
                            .Invoke(0, "acquire", nullptr, "k")
                            .Ok(0)
                            .Invoke(1, "acquire", nullptr, "k")
                            .Ok(1)
                            .Build();
  const CheckResult refuted = StreamedKey(twice, 1);
  EXPECT_EQ(refuted.valid, Validity::kFalse);
  ASSERT_EQ(refuted.anomalies.size(), 1u);
  EXPECT_EQ(refuted.anomalies[0]["op"]["index"], 3) << refuted.anomalies[0].dump();
}

TEST(LinearizabilityPassTest, ALongKeyIsSearchedInTheMemoryOfASegment) {
  // 400,000 ops of one process: quiet after every op.
  ManyEasyKeys stream(1, 200'000);
  auto history = ReadAll(stream);
  ASSERT_TRUE(history) << history.error();
  for (Op& op : *history) op.key = "k";
  const CheckResult whole = StreamedKey(*history, SIZE_MAX);
  const CheckResult cut = StreamedKey(*history, 65'536);
  ASSERT_EQ(whole.valid, Validity::kTrue) << whole.reason;
  ASSERT_EQ(cut.valid, Validity::kTrue) << cut.reason;
  EXPECT_EQ(whole.stats["segments"], 1);
  EXPECT_EQ(cut.stats["segments"], 7);  // six of 65,536 ops and the rest
  EXPECT_EQ(cut.stats["ops"], whole.stats["ops"]);
  EXPECT_LT(cut.stats["peak_memory_bytes"].get<int64_t>() * 4,
            whole.stats["peak_memory_bytes"].get<int64_t>());
}

// A clock that moves a millisecond each time it is read: what a time budget
// allows depends on the work done, not on how loaded the machine is. Keys
// searched side by side move it together, each by at most as many threads
// as search at once (4) for every reading of its own.
std::chrono::steady_clock::time_point TickingClock() {
  static std::atomic<int64_t> ticks{0};
  return std::chrono::steady_clock::time_point(std::chrono::milliseconds(++ticks));
}

// ManyEasyKeys whose reading takes time: the ticking clock, once an op.
class SlowEasyKeys : public ManyEasyKeys {
 public:
  using ManyEasyKeys::ManyEasyKeys;
  Result<bool> Next(Op* op) override {
    TickingClock();
    return ManyEasyKeys::Next(op);
  }
};

LinearizabilityOptions OnTheTickingClock(double timeout_s = 3600) {
  LinearizabilityOptions options;
  options.model = "owner-mutex";
  options.timeout_s = timeout_s;
  options.now = &TickingClock;
  return options;
}

// The ticking time, in seconds, a check took.
double TickingTime(const CheckResult& result) { return result.stats["time_s"].get<double>(); }

TEST(LinearizabilityPassTest, EachKeyHasTheWholeTimeBudget) {
  // One key's search, then 24 such keys, each with eight times its time
  // (other keys' searches beside it move the clock too): a budget the keys
  // shared would run out at the ninth.
  ManyEasyKeys one(1, 15'000);
  auto alone = CheckStream(LinearizabilityChecker(OnTheTickingClock()), one);
  ASSERT_TRUE(alone) << alone.error();
  ASSERT_EQ(alone->valid, Validity::kTrue) << alone->reason;
  ASSERT_GT(TickingTime(*alone), 0.01);
  const double budget = 8 * TickingTime(*alone);
  ManyEasyKeys stream(24, 15'000);
  auto result = CheckStream(LinearizabilityChecker(OnTheTickingClock(budget)), stream);
  ASSERT_TRUE(result) << result.error();
  EXPECT_EQ(result->valid, Validity::kTrue) << result->reason;
  EXPECT_EQ(result->stats["partitions"], 24);
  EXPECT_EQ(result->stats["ops"], 24 * 15'000 * 2);
  EXPECT_GT(TickingTime(*result), 2 * budget);
}

TEST(LinearizabilityPassTest, AKeysBudgetIsItsSearchsNotItsReading) {
  // Reading the key takes 60 s of the ticking clock, searching it less than
  // a tenth of a second: a budget counted from the reading would be spent.
  SlowEasyKeys measured(1, 15'000);
  bool nothing = true;
  auto alone = CheckLinearizableKeyStream(measured, "k0", OnTheTickingClock(), nothing);
  ASSERT_TRUE(alone) << alone.error();
  ASSERT_GT(TickingTime(*alone), 60);
  SlowEasyKeys stream(1, 15'000);
  auto result = CheckLinearizableKeyStream(stream, "k0", OnTheTickingClock(1), nothing);
  ASSERT_TRUE(result) << result.error();
  EXPECT_EQ(result->valid, Validity::kTrue) << result->reason;
}

TEST(LinearizabilityPassTest, EachPartitionOfAWholeHistoryHasTheWholeTimeBudget) {
  // The same rule where the history is checked whole: its partitions are
  // searched side by side, each with the budget's time for itself.
  auto whole = [](int keys, double timeout_s) {
    ManyEasyKeys stream(keys, 5'000);
    auto history = ReadAll(stream);
    EXPECT_TRUE(history) << history.error();
    auto result = CheckLinearizable(history ? *history : History(), OnTheTickingClock(timeout_s));
    EXPECT_TRUE(result) << result.error();
    return result ? *result : CheckResult();
  };
  const CheckResult alone = whole(1, 3600);
  ASSERT_EQ(alone.valid, Validity::kTrue) << alone.reason;
  ASSERT_GT(TickingTime(alone), 0.01);
  const double budget = 3 * TickingTime(alone);
  const CheckResult result = whole(16, budget);
  EXPECT_EQ(result.valid, Validity::kTrue) << result.reason;
  EXPECT_EQ(result.stats["partitions"], 16);
  EXPECT_GT(TickingTime(result), 3 * budget);
}

}  // namespace
}  // namespace locksmith
