// End-to-end runs with the clock nemesis on the single-Redis backend, wired
// the way a run will wire it (until the nemesis registry lists the clock
// family): the real modules, with the clock shim installed on every host
// before the servers start, the clock nemesis on the service, and one clock
// window in the schedule. Shows debate row 4 (a clock jump on the Redis node
// beyond the lease while a lock is held: unsafe grants), the observed offset
// in the history, and that no control file survives the run, also when a
// SIGINT stops it during the fault.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "base/testing/temp_dir.h"
#include "harness/run.h"
#include "harness/signal_watcher.h"
#include "history/history_file.h"
#include "history/history_log.h"
#include "nemesis/clock_controller.h"
#include "nemesis/clock_nemesis.h"
#include "nemesis/clock_window.h"

namespace locksmith {
namespace {

class ClockRunTest : public ::testing::Test {
 protected:
  ClockRunTest() {
    config_.store = store_.path();
    config_.backend = "redis";
    config_.workload = "mutex";
    config_.concurrency = 4;
    config_.seed = 7;
    config_.loopback = true;
    (void)config_.SelectModules();
    // Long leases, held for seconds: the jump, not the lease, ends them.
    EXPECT_TRUE(config_.workload_options->set()
                    .Merge({{"keys", 1}, {"lease_ms", 20'000}, {"hold", "1500-2500"}})
                    .ok());
    modules_ = DefaultRunModules();
  }

  // The clock family through the registry (--nemesis clock), its window
  // from `window_start_ms` on, as a scripted step pair would give it.
  RunOutcome RunClock(const ClockOptions& clock, int64_t window_start_ms) {
    config_.nemesis = {"clock"};
    EXPECT_TRUE(config_.SelectModules().ok());
    EXPECT_TRUE(
        config_.nemesis_options[0]->set().Merge(OptionsOf<ClockOptions>(clock).set().ToJson()).ok());
    modules_.make_schedule = [clock, window_start_ms](const RunConfig&, LockService&) {
      auto ops = ClockWindow(clock, window_start_ms, 1'000'000);
      for (auto& op : ops) op.mark.family = "clock";
      return ops;
    };
    return ExecuteRun(config_, signals_, modules_);
  }

  // Every clock-shim.ctl under the run's node directories.
  static std::vector<std::string> ControlFiles(const std::string& run_dir) {
    std::vector<std::string> found;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(run_dir)) {
      if (entry.path().filename() == ClockController::kControlFile) {
        found.push_back(entry.path().string());
      }
    }
    return found;
  }

  testing::TempDir store_{"locksmith-clock-run"};
  SignalWatcher signals_;
  RunConfig config_;
  RunModules modules_;
  ClockOptions clock_;
};

TEST_F(ClockRunTest, ABumpBeyondTheLeaseOnTheRedisNodeMakesUnsafeGrants) {
  config_.time_limit_s = 6;
  clock_.delta_ms = 60'000;
  clock_.hold_ms = 2'500;
  RunOutcome outcome = RunClock(clock_, 1'500);
  ASSERT_TRUE(outcome.result.has_value()) << outcome.error;
  EXPECT_EQ(outcome.exit_code, 1) << outcome.error;
  EXPECT_NE(outcome.result->ToJson().dump().find("unsafe-grant"), std::string::npos)
      << outcome.result->ToJson().dump();
  auto history = LoadHistoryFile(RunHistoryFile(outcome.run_dir), "jsonl", nullptr);
  ASSERT_TRUE(history.ok()) << history.error();
  bool saw_bump = false;
  for (const Op& op : *history) {
    if (op.f != "clock-bump" || op.type == OpType::kInvoke) continue;
    saw_bump = true;
    const double observed = op.value["clocks"]["n1"]["observed_offset_ms"].get<double>();
    EXPECT_NEAR(observed, 60'000.0, 100.0) << op.value.dump();
  }
  EXPECT_TRUE(saw_bump);
  EXPECT_TRUE(ControlFiles(outcome.run_dir).empty());
}

TEST_F(ClockRunTest, ASigintDuringTheFaultLeavesNoControlFile) {
  config_.time_limit_s = 60;
  clock_.hold_ms = 50'000;
  std::thread interrupter([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(3'000));
    kill(getpid(), SIGINT);
  });
  RunOutcome outcome = RunClock(clock_, 500);
  interrupter.join();
  EXPECT_FALSE(outcome.interrupted.empty()) << outcome.error;
  ASSERT_FALSE(outcome.run_dir.empty());
  EXPECT_TRUE(ControlFiles(outcome.run_dir).empty());
  auto history = LoadHistoryFile(RunHistoryFile(outcome.run_dir), "jsonl", nullptr);
  ASSERT_TRUE(history.ok()) << history.error();
  int resets = 0;
  for (const Op& op : *history) resets += op.f == "clock-reset" && op.type != OpType::kInvoke;
  EXPECT_EQ(resets, 1);  // the heal performed the window's end
}

}  // namespace
}  // namespace locksmith
