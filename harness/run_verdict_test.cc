#include "harness/run_verdict.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

// A ledger of one scripted kill that never fired.
FaultLedger NeverFired() {
  ScheduledFault kill{0, {"kill", {{"node", "n1"}}}, {0, "kill", true}, StepTrigger{"acquire", "x"}};
  kill.step = 1;
  FaultLedger ledger = FaultLedger::Plan({kill}, {{"kill"}, 5, 0});
  ledger.Observe({}, {}, true);
  return ledger;
}

TEST(RunVerdictTest, AFaultThatNeverHappenedMakesAValidRunUnknown) {
  const FaultLedger ledger = NeverFired();
  const std::string line = UnfulfilledRunLine(nullptr, 5, &ledger);
  EXPECT_EQ(line, "step 1 (kill n1 after acquire of x) never fired");
  CheckResult valid;
  EXPECT_TRUE(ApplyUnfulfilled(valid, line));
  EXPECT_EQ(valid.valid, Validity::kUnknown);
  EXPECT_EQ(valid.reason, line);
  EXPECT_EQ(ExitCodeFor(valid.valid), 2);

  // An anomaly found anyway still stands.
  CheckResult invalid;
  invalid.valid = Validity::kFalse;
  EXPECT_FALSE(ApplyUnfulfilled(invalid, line));
  EXPECT_EQ(invalid.valid, Validity::kFalse);
  EXPECT_EQ(invalid.reason, "");

  // Unknown already: the line comes first.
  CheckResult unknown;
  unknown.valid = Validity::kUnknown;
  unknown.reason = "no client operation succeeded";
  EXPECT_TRUE(ApplyUnfulfilled(unknown, line));
  EXPECT_EQ(unknown.reason, line + "; no client operation succeeded");

  CheckResult untouched;
  EXPECT_FALSE(ApplyUnfulfilled(untouched, ""));
  EXPECT_EQ(untouched.valid, Validity::kTrue);
  EXPECT_EQ(UnfulfilledRunLine(nullptr, 5, nullptr), "");
}

// A run cut short says how much of its workload and faults ran; that, not
// the faults it never got to, is why it is unknown.
TEST(RunVerdictTest, AnInterruptedRunSaysHowFarItGot) {
  const FaultLedger ledger = NeverFired();
  const nlohmann::json interruption = {
      {"signal", "SIGINT"}, {"phase", "workload"}, {"after_s", 4.21}, {"message", "..."}};
  EXPECT_EQ(UnfulfilledRunLine(interruption, 120, &ledger),
            "interrupted by SIGINT after 4.2 s of the 120 s workload, 0 of 1 planned steps ran");
  EXPECT_EQ(UnfulfilledRunLine(interruption, 120, nullptr),
            "interrupted by SIGINT after 4.2 s of the 120 s workload");
  EXPECT_EQ(UnfulfilledRunLine({{"signal", "SIGTERM"}, {"phase", "servers"}}, 60, nullptr),
            "interrupted by SIGTERM before the workload started");
}

}  // namespace
}  // namespace locksmith
