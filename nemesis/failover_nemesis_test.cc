// FailoverNemesis against a fake service whose "sentinels" promote n2 a few
// polls after the master is killed or paused: the ops name the old and new
// master, the heal restarts / resumes the old one, Teardown heals what is
// left, and a promotion that never comes is reported, still healed.
#include "nemesis/failover_nemesis.h"

#include <gtest/gtest.h>

#include <mutex>
#include <vector>

namespace locksmith {
namespace {

using std::chrono::milliseconds;

class FakeFailoverService : public HasPrimary, public Killable, public Pausable {
 public:
  explicit FakeFailoverService(int polls_to_promote) : polls_left_(polls_to_promote) {}
  Result<std::string> Primary() override {
    if (faulted_ && polls_left_ >= 0 && polls_left_-- == 0) leader_ = "n2";
    return leader_;
  }
  Status KillNode(const std::string& n) override { return Did("kill " + n); }
  Status StartNode(const std::string& n) override { return Did("start " + n); }
  Status PauseNode(const std::string& n) override { return Did("pause " + n); }
  Status ResumeNode(const std::string& n) override { return Did("resume " + n); }

  std::vector<std::string> calls;

 private:
  Status Did(const std::string& what) {
    calls.push_back(what);
    faulted_ = what.rfind("kill", 0) == 0 || what.rfind("pause", 0) == 0;
    return OkStatus();
  }
  std::string leader_ = "n1";
  int polls_left_;
  bool faulted_ = false;
};

TEST(FailoverNemesisTest, KillsTheMasterUntilPromotionThenRestartsIt) {
  FakeFailoverService service(3);
  FailoverNemesis nemesis(service, &service, &service, milliseconds(5000), milliseconds(1));
  FaultResult begun = nemesis.Invoke({"failover", {{"mode", "kill"}}});
  EXPECT_TRUE(begun.ok) << begun.error;
  EXPECT_EQ(begun.value["old"], "n1");
  EXPECT_EQ(begun.value["new"], "n2");
  EXPECT_TRUE(begun.value.contains("promoted_after_ms"));
  FaultResult healed = nemesis.Invoke({"failover-heal", nullptr});
  EXPECT_TRUE(healed.ok);
  EXPECT_EQ(healed.value["old"], "n1");
  EXPECT_EQ(healed.value["new"], "n2");
  EXPECT_EQ(service.calls, (std::vector<std::string>{"kill n1", "start n1"}));
  EXPECT_TRUE(nemesis.Teardown().empty());
}

TEST(FailoverNemesisTest, PauseWithoutPromotionIsReportedAndHealedByTeardown) {
  FakeFailoverService service(-1);  // never promotes
  FailoverNemesis nemesis(service, &service, &service, milliseconds(20), milliseconds(1));
  FaultResult begun = nemesis.Invoke({"failover", {{"mode", "pause"}}});
  EXPECT_TRUE(begun.ok);
  EXPECT_TRUE(begun.value["new"].is_null());
  EXPECT_NE(begun.error.find("no new master"), std::string::npos);
  EXPECT_FALSE(nemesis.Invoke({"failover", {{"mode", "pause"}}}).ok);  // one at a time
  EXPECT_TRUE(nemesis.Teardown().empty());
  EXPECT_EQ(service.calls, (std::vector<std::string>{"pause n1", "resume n1"}));
  EXPECT_TRUE(nemesis.Teardown().empty());  // twice is fine
}

TEST(FailoverNemesisTest, WindowEndsWithTheHeal) {
  FailoverOptions o;
  o.mode = "pause";
  o.failover_ms = 3000;
  auto ops = FailoverWindow(o)(1000, 100000);
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0].op.f, "failover");
  EXPECT_EQ(ops[0].op.value["mode"], "pause");
  EXPECT_EQ(ops[1].op.f, "failover-heal");
  EXPECT_EQ(ops[1].at_ms, 4000);
}

}  // namespace
}  // namespace locksmith
