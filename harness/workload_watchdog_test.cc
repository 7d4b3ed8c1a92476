#include "harness/workload_watchdog.h"

#include <gtest/gtest.h>

#include "base/testing/eventually.h"

namespace locksmith {
namespace {

using std::chrono::milliseconds;

struct Watched {
  std::atomic<bool> interrupted{false};
  std::atomic<int> ended{0};
  WorkloadWatchdog watchdog{milliseconds(100), interrupted,
                            [](WorkloadWatchdog::Clock::time_point) {
                              return std::string("worker 3 (process 3) in acquire lock-0");
                            },
                            [this] { ++ended; }};
};

TEST(WorkloadWatchdogTest, AWorkloadPastItsLimitAndGraceIsEndedWithOneLine) {
  Watched w;
  EXPECT_EQ(w.watchdog.fired(), "");
  w.watchdog.Arm(WorkloadWatchdog::Clock::now());
  ASSERT_TRUE(testing::Eventually([&] { return w.ended.load() == 1; }, "the watchdog ends it"));
  const std::string line = w.watchdog.fired();
  EXPECT_EQ(line.rfind("workload hung: still running ", 0), 0u) << line;
  EXPECT_NE(line.find(" after its time limit (grace 0.1 s): worker 3 (process 3) in acquire "
                      "lock-0"),
            std::string::npos)
      << line;
}

TEST(WorkloadWatchdogTest, AnInterruptOrTheWorkloadsEndStartsTheGraceToo) {
  Watched interrupted;
  interrupted.watchdog.Arm(WorkloadWatchdog::Clock::now() + std::chrono::hours(1));
  interrupted.interrupted = true;
  ASSERT_TRUE(testing::Eventually([&] { return interrupted.ended.load() == 1; }, "ended"));
  EXPECT_NE(interrupted.watchdog.fired().find(" after the interrupt "), std::string::npos)
      << interrupted.watchdog.fired();

  Watched returned;  // never armed: its clients never all connected
  returned.watchdog.WorkloadEnded();
  ASSERT_TRUE(testing::Eventually([&] { return returned.ended.load() == 1; }, "ended"));
  EXPECT_NE(returned.watchdog.fired().find("its event loop still busy "), std::string::npos)
      << returned.watchdog.fired();
}

}  // namespace
}  // namespace locksmith
