#include "nemesis/nemesis_runner.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>

#include "history/testing/memory_recorder.h"

namespace locksmith {
namespace {

using testing::MemoryRecorder;

// A server pause and a client stall: "stall" waits (up to `patience`) for
// the server's "resume", as a client pause waits for a holder that waits
// for a paused server; a "resume" first waits (up to 30 s) for a stall to
// have begun, so the two meet whatever the threads' timing.
class StallNemesis : public Nemesis {
 public:
  explicit StallNemesis(std::chrono::milliseconds patience = std::chrono::seconds(30))
      : patience_(patience) {}
  std::vector<std::string> Faults() const override { return {"pause", "resume", "stall"}; }
  FaultResult Invoke(const FaultOp& op) override {
    std::unique_lock lock(mu_);
    if (op.f == "resume") {
      cv_.wait_for(lock, std::chrono::seconds(30), [this] { return stalled_; });
      resumed_ = true;
      cv_.notify_all();
      return {};
    }
    if (op.f == "stall") {
      stalled_ = true;
      cv_.notify_all();
      if (!cv_.wait_for(lock, patience_, [this] { return resumed_; })) {
        return {false, nullptr, "no holder: the server was never resumed"};
      }
    }
    return {};
  }
  std::vector<HealFailure> Teardown() override { return {}; }

 private:
  const std::chrono::milliseconds patience_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stalled_ = false;
  bool resumed_ = false;
};

// The pause (window 0) at 0 ms, ended at 20 ms; the stall (window 1) begun
// at 10 ms, ended at 30 ms.
std::vector<ScheduledFault> PauseAndStall() {
  return {{0, {"pause", nullptr}, {0, "pause", true}},
          {10, {"stall", nullptr}, {1, "client-pause", true}},
          {20, {"resume", nullptr}, {0, "pause", false}},
          {30, {"resume", nullptr}, {1, "client-pause", false}}};
}

void AwaitPerformed(const NemesisRunner& runner, int n) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (runner.performed() < n && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

TEST(NemesisRunnerLanesTest, AFamilyOnItsOwnLaneDoesNotHoldBackTheServersEnds) {
  StallNemesis nemesis;
  MemoryRecorder recorder;
  NemesisRunner runner(nemesis, recorder, PauseAndStall(), nullptr, {"client-pause"});
  runner.Start(std::chrono::steady_clock::now());
  AwaitPerformed(runner, 4);
  runner.Stop();
  EXPECT_EQ(runner.failed(), 0);
  const History h = recorder.history();
  ASSERT_EQ(h.size(), 8u);
  // The stall's invoke came before the resume's completion, and the stall
  // ended without error, released by the resume: each op pairs with its
  // own by the fault window.
  const std::vector<int64_t> completion_of = PairCompletions(h);
  int stall_invoke = -1, resume_done = -1;
  for (size_t i = 0; i < h.size(); ++i) {
    if (h[i].type != OpType::kInvoke) continue;
    ASSERT_GE(completion_of[i], 0) << h[i].f;
    const Op& done = h[static_cast<size_t>(completion_of[i])];
    EXPECT_EQ(done.f, h[i].f);
    EXPECT_EQ(done.fault, h[i].fault);
    EXPECT_TRUE(done.error.empty()) << done.error;
    if (h[i].f == "stall") stall_invoke = static_cast<int>(i);
    if (h[i].f == "resume" && h[i].fault["window"] == 0) resume_done = completion_of[i];
  }
  EXPECT_GE(stall_invoke, 0);
  EXPECT_LT(stall_invoke, resume_done);
}

TEST(NemesisRunnerLanesTest, ScriptedStepsStayOneOrderedLane) {
  StallNemesis nemesis(std::chrono::milliseconds(100));
  MemoryRecorder recorder;
  std::vector<ScheduledFault> steps = PauseAndStall();
  for (size_t i = 0; i < steps.size(); ++i) steps[i].step = static_cast<int>(i) + 1;
  // Step 3's resume comes after step 2's stall, which waits for a resume:
  // on the steps' one lane the stall gives up, and each step's pair is
  // recorded before the next step begins.
  NemesisRunner runner(nemesis, recorder, steps, nullptr, {"client-pause"});
  runner.Start(std::chrono::steady_clock::now());
  AwaitPerformed(runner, 4);
  runner.Stop();
  EXPECT_EQ(runner.failed(), 1);
  const History h = recorder.history();
  ASSERT_EQ(h.size(), 8u);
  for (size_t i = 0; i < h.size(); ++i) {
    EXPECT_EQ(h[i].type, i % 2 ? OpType::kInfo : OpType::kInvoke) << i;
    EXPECT_EQ(h[i].fault, steps[i / 2].mark.ToJson()) << i;
  }
  EXPECT_EQ(h[3].error, "no holder: the server was never resumed");
}

TEST(NemesisRunnerLanesTest, HealEndsTheWindowsBegunOnEveryLane) {
  StallNemesis nemesis(std::chrono::milliseconds(0));
  MemoryRecorder recorder;
  // Both windows begin at once (a pause and a stall that gives up at
  // once); their ends are an hour away.
  std::vector<ScheduledFault> schedule = {
      {0, {"pause", nullptr}, {0, "pause", true}},
      {0, {"stall", nullptr}, {1, "client-pause", true}},
      {3'600'000, {"resume", nullptr}, {0, "pause", false}},
      {3'600'000, {"resume", nullptr}, {1, "client-pause", false}}};
  NemesisRunner runner(nemesis, recorder, schedule, nullptr, {"client-pause"});
  runner.Start(std::chrono::steady_clock::now());
  AwaitPerformed(runner, 2);
  ASSERT_EQ(runner.performed(), 2);
  runner.Heal();
  EXPECT_EQ(runner.performed(), 4);
  const History h = recorder.history();
  ASSERT_EQ(h.size(), 8u);
  EXPECT_EQ(h[4].fault, schedule[2].mark.ToJson());
  EXPECT_EQ(h[6].fault, schedule[3].mark.ToJson());
}

}  // namespace
}  // namespace locksmith
