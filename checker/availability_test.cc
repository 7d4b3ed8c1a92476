#include "checker/availability.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

constexpr int64_t kMs = 1'000'000;

// A history written op by op, times in ms.
class Ops {
 public:
  Ops& Client(int64_t process, int64_t at_ms, int64_t done_ms, OpType outcome,
              nlohmann::json value = nullptr) {
    Add({.time = at_ms * kMs, .process = process, .type = OpType::kInvoke, .f = "acquire",
         .key = "k"});
    pending_.push_back({.time = done_ms * kMs, .process = process, .type = outcome,
                        .f = "acquire", .key = "k", .value = std::move(value)});
    return *this;
  }
  Ops& Fault(int64_t window, bool begins, OpType type, int64_t at_ms,
             const std::string& family = "failover") {
    Add({.time = at_ms * kMs, .process = kNemesisProcess, .type = type,
         .f = begins ? family : family + "-heal",
         .fault = FaultMark{window, family, begins}.ToJson()});
    return *this;
  }
  History Build() {
    for (Op& op : pending_) history_.push_back(op);
    std::stable_sort(history_.begin(), history_.end(),
                     [](const Op& a, const Op& b) { return a.time < b.time; });
    for (size_t i = 0; i < history_.size(); ++i) history_[i].index = static_cast<int64_t>(i);
    return history_;
  }

 private:
  void Add(Op op) { history_.push_back(std::move(op)); }
  History history_;
  std::vector<Op> pending_;
};

TEST(AvailabilityCheckerTest, CountsInsideAndOutsideWindowsAndTheRecovery) {
  History h = Ops()
                  .Client(0, 10, 12, OpType::kOk)      // before any fault
                  .Fault(0, true, OpType::kInvoke, 100)
                  .Client(1, 110, 610, OpType::kInfo)  // the master is gone
                  .Client(2, 120, 130, OpType::kFail)
                  .Fault(0, true, OpType::kInfo, 2400)  // promoted
                  .Client(2, 2300, 2310, OpType::kOk)   // invoked before the promotion
                  .Client(3, 2500, 2520, OpType::kOk)   // the first after it
                  .Fault(0, false, OpType::kInvoke, 5000)
                  .Fault(0, false, OpType::kInfo, 5050)
                  .Client(0, 6000, 6001, OpType::kOk)
                  .Client(1, 6010, 6011, OpType::kFail)
                  .Build();
  CheckResult r = AvailabilityChecker().Check(h);
  EXPECT_EQ(r.valid, Validity::kTrue);
  EXPECT_EQ(r.stats["inside_faults"]["attempts"], 4);
  EXPECT_EQ(r.stats["inside_faults"]["ok"], 2);
  EXPECT_DOUBLE_EQ(r.stats["inside_faults"]["availability"].get<double>(), 0.5);
  EXPECT_EQ(r.stats["inside_faults"]["refused"], 1);
  EXPECT_EQ(r.stats["inside_faults"]["in_doubt"], 1);
  EXPECT_DOUBLE_EQ(r.stats["inside_faults"]["answered"].get<double>(), 0.75);
  EXPECT_EQ(r.stats["outside_faults"]["attempts"], 3);
  EXPECT_EQ(r.stats["outside_faults"]["refused"], 1);
  EXPECT_EQ(r.stats["outside_faults"]["in_doubt"], 0);
  EXPECT_EQ(r.stats["outside_faults"]["ok"], 2);
  ASSERT_EQ(r.stats["windows"].size(), 1u);
  const auto& w = r.stats["windows"][0];
  EXPECT_EQ(w["family"], "failover");
  EXPECT_DOUBLE_EQ(w["begin_ms"].get<double>(), 100);
  EXPECT_DOUBLE_EQ(w["end_ms"].get<double>(), 5050);
  EXPECT_DOUBLE_EQ(w["recovery_ms"].get<double>(), 2420);  // 100 -> ok at 2520
  EXPECT_EQ(r.summary, "acquires ok 50.0% inside faults, 66.7% outside");
}

TEST(AvailabilityCheckerTest, AWindowCutShortLastsToTheEndAndMayNeverRecover) {
  History h = Ops()
                  .Fault(3, true, OpType::kInvoke, 100, "kill")
                  .Fault(3, true, OpType::kInfo, 105, "kill")
                  .Client(0, 200, 700, OpType::kInfo)
                  .Client(1, 300, 310, OpType::kFail)
                  .Build();
  CheckResult r = AvailabilityChecker().Check(h);
  EXPECT_EQ(r.stats["inside_faults"]["attempts"], 2);
  EXPECT_EQ(r.stats["inside_faults"]["ok"], 0);
  EXPECT_TRUE(r.stats["outside_faults"]["availability"].is_null());
  const auto& w = r.stats["windows"][0];
  EXPECT_EQ(w["window"], 3);
  EXPECT_TRUE(w["end_ms"].is_null());
  EXPECT_TRUE(w["recovery_ms"].is_null());
  EXPECT_EQ(r.summary, "acquires ok 0.0% inside faults, - outside");
}

TEST(AvailabilityCheckerTest, NoFaultsNoAcquires) {
  CheckResult r = AvailabilityChecker().Check({});
  EXPECT_EQ(r.valid, Validity::kTrue);
  EXPECT_TRUE(r.stats["windows"].empty());
  EXPECT_EQ(r.stats["outside_faults"]["attempts"], 0);
}

// A failed acquire says why its wait ended: with no answer on the lock
// (an outage) or with the lock still busy (contention); only the first
// counts as unanswered.
TEST(AvailabilityCheckerTest, SplitsFailsThatGotNoAnswerFromABusyLock) {
  History h = Ops()
                  .Client(0, 10, 2010, OpType::kFail, {{"gave_up", "busy"}})
                  .Fault(0, true, OpType::kInvoke, 3000, "kill")
                  .Fault(0, true, OpType::kOk, 3001, "kill")
                  .Client(1, 3100, 5100, OpType::kFail, {{"gave_up", "unanswered"}})
                  .Client(2, 3200, 5200, OpType::kFail, {{"gave_up", "busy"}})
                  .Client(3, 3300, 3900, OpType::kInfo)
                  .Client(4, 3400, 3500, OpType::kOk)
                  .Fault(0, false, OpType::kInvoke, 6000, "kill")
                  .Fault(0, false, OpType::kOk, 6001, "kill")
                  .Client(0, 7000, 7001, OpType::kFail)  // says nothing: not counted
                  .Build();
  CheckResult r = AvailabilityChecker().Check(h);
  EXPECT_EQ(r.stats["inside_faults"]["attempts"], 4);
  EXPECT_EQ(r.stats["inside_faults"]["unanswered"], 1);
  EXPECT_DOUBLE_EQ(r.stats["inside_faults"]["unanswered_share"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(r.stats["inside_faults"]["in_doubt_share"].get<double>(), 0.25);
  EXPECT_EQ(r.stats["outside_faults"]["attempts"], 2);
  EXPECT_EQ(r.stats["outside_faults"]["unanswered"], 0);
  EXPECT_DOUBLE_EQ(r.stats["outside_faults"]["unanswered_share"].get<double>(), 0);
}

}  // namespace
}  // namespace locksmith
