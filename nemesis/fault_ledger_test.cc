#include "nemesis/fault_ledger.h"

#include <gtest/gtest.h>

#include "nemesis/nemesis_registry.h"
#include "nemesis/scenario_steps.h"

namespace locksmith {
namespace {

const std::vector<FamilyOpNames> kFamilies = {{"kill", {"kill"}, "restart"},
                                              {"client-pause", {"client-pause"}, "client-resume"}};

std::vector<ScheduledFault> Steps(const std::string& text) {
  return ParseScenarioSteps(nlohmann::json::parse(text), kFamilies, 60).value();
}

// A history of nemesis ops, as the runner records them.
class NemesisOps {
 public:
  // The op pair of `fault`: its invoke, then its completion with `value`
  // and `error`.
  NemesisOps& Pair(const ScheduledFault& fault, nlohmann::json value, std::string error = "") {
    const Op invoke = fault.Invoke();
    Add(invoke);
    Op done = invoke;
    done.type = OpType::kInfo;
    done.value = std::move(value);
    done.error = std::move(error);
    Add(done);
    return *this;
  }
  NemesisOps& Client(const std::string& f, int64_t process) {
    Add(Op{.process = process, .type = OpType::kOk, .f = f, .key = "lock-0"});
    return *this;
  }
  const History& history() const { return history_; }

 private:
  void Add(Op op) {
    op.index = static_cast<int64_t>(history_.size());
    op.time = (op.index + 1) * 500'000'000;  // every op half a second after the last
    history_.push_back(std::move(op));
  }
  History history_;
};

TEST(FaultLedgerTest, AnEventStepThatNeverFiredIsNamedInOneLine) {
  const auto steps = Steps(R"([
    {"after": {"f": "acquire", "key": "no-such-key"}, "f": "kill", "value": {"node": "n1"}},
    {"at_ms": 3000, "f": "restart"}])");
  FaultLedger ledger = FaultLedger::Plan(steps, {{"kill"}, 5, 0});
  ledger.Observe(NemesisOps().Client("acquire", 1).history(), {}, true);
  EXPECT_EQ(ledger.Unfulfilled(),
            "step 1 (kill n1 after acquire of no-such-key) never fired");
  ASSERT_EQ(ledger.rows().size(), 2u);
  EXPECT_FALSE(ledger.rows()[0].fired);
  EXPECT_FALSE(ledger.rows()[1].fired);  // its restart never came either: no second line
  EXPECT_EQ(ledger.Totals(), (std::vector<LedgerTotals>{{"kill", 1, 0, 0, 0, 0}}));
  EXPECT_EQ(ledger.Progress(), "0 of 2 planned steps ran");
  EXPECT_EQ(ledger.ToJson()["unfulfilled"], ledger.Unfulfilled());
}

TEST(FaultLedgerTest, StepsThatRanAndWereObservedLeaveNothingUnfulfilled) {
  const auto steps = Steps(R"([
    {"at_ms": 300, "f": "kill", "value": {"node": "n1"}},
    {"after": {"f": "acquire", "key": "lock-0"}, "delay_ms": 200, "f": "restart"}])");
  FaultLedger ledger = FaultLedger::Plan(steps, {{"kill"}, 5, 0});
  NemesisOps ops;
  ops.Pair(steps[0], {{"nodes", {"n1"}}, {"pids", {{"n1", 40}}}})
      .Client("acquire", 2)
      .Pair(steps[1], {{"nodes", {"n1"}}, {"observed", true}});
  ledger.Observe(ops.history(), {}, true);
  EXPECT_EQ(ledger.Unfulfilled(), "");
  ASSERT_EQ(ledger.rows().size(), 2u);
  const LedgerRow& kill = ledger.rows()[0];
  EXPECT_EQ(kill.what, "kill n1 at 300 ms");
  EXPECT_EQ(ledger.rows()[1].what, "restart 200 ms after acquire of lock-0");
  EXPECT_TRUE(kill.fired && kill.applied && kill.healed && kill.observed);
  EXPECT_EQ(kill.done, "kill n1");
  EXPECT_DOUBLE_EQ(kill.at_s, 1.0);
  EXPECT_EQ(ledger.Totals(), (std::vector<LedgerTotals>{{"kill", 1, 1, 1, 1, 1}}));
  EXPECT_EQ(ledger.Progress(), "2 of 2 planned steps ran");
}

TEST(FaultLedgerTest, AFailedOrUnconfirmedStepIsUnfulfilled) {
  const auto steps = Steps(R"([
    {"at_ms": 300, "f": "kill", "value": {"node": "n1"}},
    {"at_ms": 900, "f": "restart"},
    {"at_ms": 1000, "f": "kill", "value": {"node": "n2"}}])");
  FaultLedger ledger = FaultLedger::Plan(steps, {{"kill"}, 5, 0});
  NemesisOps ops;
  ops.Pair(steps[0], {{"nodes", {"n1"}}})
      .Pair(steps[1], {{"nodes", {"n1"}}, {"observed", false}})
      .Pair(steps[2], {{"nodes", nlohmann::json::array()}}, "no redis node n2 (nodes: n1)");
  ledger.Observe(ops.history(), {}, true);
  EXPECT_EQ(ledger.Unfulfilled(),
            "step 1 (kill n1 at 300 ms) was not observed: no check saw it take effect (and 1 "
            "more: see \"faults\" in results.json)");
  EXPECT_EQ(ledger.rows()[2].error, "no redis node n2 (nodes: n1)");
  EXPECT_FALSE(ledger.rows()[2].healed) << "a fault never applied is never healed";
}

TEST(FaultLedgerTest, ARequestedFamilyThatPlannedNothingOrWasNeverObservedIsUnfulfilled) {
  EXPECT_EQ(FaultLedger::Plan({}, {{"kill"}, 5, 10}).Unfulfilled(),
            "nemesis kill planned no fault: the first comes one interval (10 s) into the "
            "workload, which lasts 5 s");

  ScheduledFault kill{3000, {"kill", {{"target", "one"}}}, {0, "kill", true}};
  ScheduledFault restart{3100, {"restart", nullptr}, {0, "kill", false}};
  FaultLedger ledger = FaultLedger::Plan({kill, restart}, {{"kill"}, 10, 3});
  ASSERT_EQ(ledger.rows().size(), 1u) << "a window is one row";
  EXPECT_EQ(ledger.rows()[0].what, "kill");  // its target is resolved when it starts
  NemesisOps ops;
  ops.Pair(kill, {{"nodes", {"n1"}}, {"target", "one"}}).Pair(restart, {{"nodes", {"n1"}}});
  ledger.Observe(ops.history(), {}, true);
  EXPECT_EQ(ledger.Unfulfilled(),
            "nemesis kill: none of its 1 fault was observed (no check saw one take effect)");
  EXPECT_EQ(ledger.rows()[0].done, "kill n1");
  EXPECT_TRUE(ledger.rows()[0].healed);

  FaultLedger failed = FaultLedger::Plan({kill, restart}, {{"kill"}, 10, 3});
  NemesisOps failing;
  failing.Pair(kill, {{"nodes", nlohmann::json::array()}}, "backend x cannot kill");
  failed.Observe(failing.history(), {}, true);
  EXPECT_EQ(failed.Unfulfilled(), "nemesis kill: none of its 1 fault was applied: backend x "
                                  "cannot kill");
}

// A family that confirms its faults from the history (a client pause whose
// worker stalled for the whole pause) decides, unless an op said no; a
// stall's outliving its lease is a fact of its own, counted apart.
TEST(FaultLedgerTest, AFamilysConfirmationFromTheHistoryDecides) {
  ScheduledFault pause{1000, {"client-pause", {{"ms", 2000}}}, {0, "client-pause", true}};
  ScheduledFault resume{3000, {"client-resume", nullptr}, {0, "client-pause", false}};
  NemesisOps ops;
  ops.Pair(pause, {{"process", 3}, {"key", "lock-0"}, {"ms", 2000}}).Pair(resume, {});
  size_t asked_about = 99;
  FaultConfirmations confirm = {{"client-pause", [&](const History&, size_t begin_done) {
                                   asked_about = begin_done;
                                   return std::optional<FaultConfirmed>({true, false});
                                 }}};
  FaultLedger ledger = FaultLedger::Plan({pause, resume}, {{"client-pause"}, 10, 3});
  ledger.Observe(ops.history(), confirm, true);
  EXPECT_EQ(asked_about, 1u) << "the begin op's completion";
  EXPECT_TRUE(ledger.rows()[0].observed) << "a stall within its lease took effect";
  EXPECT_EQ(ledger.rows()[0].past_lease, std::optional<bool>(false));
  // In the family's own words (its FaultLook).
  EXPECT_EQ(ledger.rows()[0].done, "client-pause p3 holding lock-0 for 2.000 s");
  EXPECT_EQ(ledger.Unfulfilled(), "");
  EXPECT_EQ(ledger.Totals(),
            (std::vector<LedgerTotals>{{"client-pause", 1, 1, 1, 1, 1, 0}}));
  EXPECT_EQ(ledger.ToJson()["families"][0]["past_lease"], 0);
  EXPECT_EQ(ledger.ToJson()["rows"][0]["past_lease"], false);

  confirm["client-pause"] = [](const History&, size_t) {
    return std::optional<FaultConfirmed>({true, true});
  };
  ledger.Observe(ops.history(), confirm, true);
  EXPECT_TRUE(ledger.rows()[0].observed);
  EXPECT_EQ(ledger.Totals()[0].past_lease, std::optional<int>(1));

  // Not observed: no stall, so nothing outlived a lease.
  confirm["client-pause"] = [](const History&, size_t) {
    return std::optional<FaultConfirmed>(FaultConfirmed{});
  };
  ledger.Observe(ops.history(), confirm, true);
  EXPECT_FALSE(ledger.rows()[0].observed);
  EXPECT_EQ(ledger.rows()[0].past_lease, std::nullopt);
  EXPECT_EQ(ledger.Totals()[0].past_lease, std::nullopt);
  EXPECT_FALSE(ledger.ToJson()["families"][0].contains("past_lease"));
}

// A family whose faults stall no holder has no past-lease count at all.
TEST(FaultLedgerTest, OnlyAFamilyThatStallsHoldersCountsPastTheLease) {
  ScheduledFault kill{3000, {"kill", {{"target", "one"}}}, {0, "kill", true}};
  ScheduledFault restart{3100, {"restart", nullptr}, {0, "kill", false}};
  FaultLedger ledger = FaultLedger::Plan({kill, restart}, {{"kill"}, 10, 3});
  NemesisOps ops;
  ops.Pair(kill, {{"nodes", {"n1"}}}).Pair(restart, {{"nodes", {"n1"}}, {"observed", true}});
  ledger.Observe(ops.history(), {}, true);
  EXPECT_TRUE(ledger.rows()[0].observed);
  EXPECT_EQ(ledger.rows()[0].past_lease, std::nullopt);
  EXPECT_EQ(ledger.Totals(), (std::vector<LedgerTotals>{{"kill", 1, 1, 1, 1, 1}}));
  EXPECT_FALSE(ledger.ToJson()["families"][0].contains("past_lease"));
  EXPECT_FALSE(ledger.ToJson()["rows"][0].contains("past_lease"));
}

// The registered check of client pauses on crafted histories: a holder
// stalled for a whole 500 ms pause of its 3 s lease is observed (the safe
// case a run may set out to show), with nothing past the lease; one stalled
// for 1.5 s of a 1 s lease is observed and counted past it.
TEST(FaultLedgerTest, ARegisteredClientPauseIsObservedWithinItsLeaseAndCountedPastIt) {
  auto run = [](int64_t lease_ms, int64_t pause_ms) {
    constexpr int64_t kMs = 1'000'000;
    ScheduledFault pause{1000, {"client-pause", {{"ms", pause_ms}}}, {0, "client-pause", true}};
    ScheduledFault resume{1000 + pause_ms, {"client-resume", nullptr},
                          {0, "client-pause", false}};
    History h;
    auto add = [&](int64_t ms, Op op) {
      op.index = static_cast<int64_t>(h.size());
      op.time = ms * kMs;
      h.push_back(std::move(op));
    };
    auto client = [](int64_t process, OpType type, std::string f, nlohmann::json value) {
      return Op{.process = process, .type = type, .f = std::move(f), .key = "lock-0",
                .value = std::move(value)};
    };
    add(990, client(2, OpType::kInvoke, "acquire", {{"lease_ms", lease_ms}}));
    add(995, client(2, OpType::kOk, "acquire", {{"token", "a"}, {"validity_ms", lease_ms}}));
    add(1000, pause.Invoke());
    add(1001, client(2, OpType::kInvoke, "pause", {{"ms", pause_ms}}));
    Op done = pause.Invoke();
    done.type = OpType::kInfo;
    done.value = {{"process", 2}, {"key", "lock-0"}, {"ms", pause_ms}};
    add(1002, done);
    add(1001 + pause_ms, client(2, OpType::kOk, "pause", {{"ms", pause_ms}}));
    add(1001 + pause_ms, client(2, OpType::kInvoke, "release", {{"token", "a"}}));
    add(1003 + pause_ms, client(2, OpType::kOk, "release", {{"token", "a"}}));
    add(1000 + pause_ms, resume.Invoke());
    Op resumed = resume.Invoke();
    resumed.type = OpType::kInfo;
    resumed.value = nlohmann::json::object();
    add(1000 + pause_ms, resumed);
    FaultLedger ledger = FaultLedger::Plan({pause, resume}, {{"client-pause"}, 10, 3});
    ledger.Observe(h, RegisteredConfirmations(), true);
    return ledger.ToJson();
  };
  const nlohmann::json within = run(3000, 500);
  EXPECT_EQ(within["families"][0]["observed"], 1) << within;
  EXPECT_EQ(within["families"][0]["past_lease"], 0) << within;
  EXPECT_FALSE(within.contains("unfulfilled")) << within;
  const nlohmann::json past = run(1000, 1500);
  EXPECT_EQ(past["families"][0]["observed"], 1) << past;
  EXPECT_EQ(past["families"][0]["past_lease"], 1) << past;
  EXPECT_EQ(past["rows"][0]["past_lease"], true) << past;
}

// The judge recomputes the outcomes from the plan results.json keeps and
// the history: a stored run re-checked gets the same ledger.
TEST(FaultLedgerTest, ThePlanRoundTripsThroughJson) {
  const auto steps = Steps(R"([
    {"at_ms": 300, "f": "kill", "value": {"node": "n1"}},
    {"after": {"f": "acquire"}, "f": "client-pause", "value": {"ms": 100}},
    {"at_ms": 900, "f": "restart"}])");
  FaultLedger ledger = FaultLedger::Plan(steps, {{"kill", "client-pause"}, 5, 0});
  NemesisOps ops;
  ops.Pair(steps[0], {{"nodes", {"n1"}}}).Pair(steps[2], {{"nodes", {"n1"}}, {"observed", true}});
  ledger.Observe(ops.history(), {}, true);
  auto again = FaultLedger::FromJson(ledger.ToJson());
  ASSERT_TRUE(again.ok()) << again.error();
  again->Observe(ops.history(), {}, true);
  EXPECT_EQ(again->ToJson(), ledger.ToJson());
  EXPECT_EQ(again->rows(), ledger.rows());
  EXPECT_EQ(ledger.ToJson()["families"][1],
            nlohmann::json({{"family", "client-pause"}, {"planned", 1}, {"fired", 0},
                            {"applied", 0}, {"healed", 0}, {"observed", 0}}));
  EXPECT_FALSE(FaultLedger::FromJson(nlohmann::json::array()).ok());
}

}  // namespace
}  // namespace locksmith
