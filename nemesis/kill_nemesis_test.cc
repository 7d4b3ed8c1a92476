#include "nemesis/kill_nemesis.h"

#include <gtest/gtest.h>

#include <map>

#include "nemesis/nemesis_runner.h"
#include "checker/memory_recorder.h"

namespace locksmith {
namespace {

// Records what the nemesis asked for; "n9" does not exist.
class FakeKillable : public Killable {
 public:
  Status KillNode(const std::string& node) override {
    if (node == "n9") return Error{"no redis node n9"};
    up[node] = false;
    return OkStatus();
  }
  Status StartNode(const std::string& node) override {
    up[node] = true;
    return OkStatus();
  }
  std::map<std::string, bool> up;
};

TEST(KillNemesisTest, KillsAndStartsNodes) {
  FakeKillable service;
  KillNemesis nemesis(service);
  EXPECT_TRUE(nemesis.Invoke({"kill", {{"node", "n1"}}}).ok);
  EXPECT_FALSE(service.up["n1"]);
  EXPECT_TRUE(nemesis.Invoke({"start", {{"node", "n1"}}}).ok);
  EXPECT_TRUE(service.up["n1"]);
}

TEST(KillNemesisTest, BadOpsFailWithAReason) {
  FakeKillable service;
  KillNemesis nemesis(service);
  auto r = nemesis.Invoke({"kill", nullptr});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("node"), std::string::npos);
  r = nemesis.Invoke({"kill", {{"node", "n9"}}});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("n9"), std::string::npos);
}

TEST(KillNemesisTest, TeardownRestartsWhatIsStillDown) {
  FakeKillable service;
  KillNemesis nemesis(service);
  nemesis.Invoke({"kill", {{"node", "n1"}}});
  nemesis.Invoke({"kill", {{"node", "n2"}}});
  nemesis.Invoke({"start", {{"node", "n2"}}});
  service.up["n2"] = false;  // a later start must not come from teardown
  nemesis.Teardown();
  EXPECT_TRUE(service.up["n1"]);
  EXPECT_FALSE(service.up["n2"]);
}

TEST(NemesisRunnerTest, RecordsEachFaultAsInvokeThenInfo) {
  FakeKillable service;
  KillNemesis nemesis(service);
  MemoryRecorder recorder;
  std::vector<ScheduledFault> schedule{{0, {"kill", {{"node", "n1"}}}},
                                       {1, {"kill", {{"node", "n9"}}}},
                                       {2, {"start", {{"node", "n1"}}}}};
  NemesisRunner runner(nemesis, recorder, schedule);
  runner.Start(std::chrono::steady_clock::now());
  // Stop() only interrupts waiting; wait (bounded) until all three ran.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (runner.performed() < 3 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_EQ(runner.performed(), 3);
  runner.Stop();
  History h = recorder.history();
  ASSERT_EQ(h.size(), 6u);
  for (size_t i = 0; i < h.size(); ++i) {
    EXPECT_TRUE(h[i].is_nemesis());
    EXPECT_EQ(h[i].type, i % 2 ? OpType::kInfo : OpType::kInvoke);
  }
  EXPECT_EQ(h[3].error, "no redis node n9");
  EXPECT_EQ(runner.failed(), 1);
  EXPECT_TRUE(service.up["n1"]);
}

TEST(NemesisRunnerTest, StopInterruptsALongWait) {
  FakeKillable service;
  KillNemesis nemesis(service);
  MemoryRecorder recorder;
  NemesisRunner runner(nemesis, recorder, {{3'600'000, {"kill", {{"node", "n1"}}}}});
  runner.Start(std::chrono::steady_clock::now());
  runner.Stop();
  EXPECT_EQ(runner.performed(), 0);
  EXPECT_TRUE(recorder.history().empty());
}

}  // namespace
}  // namespace locksmith
