#include "nemesis/clock_nemesis.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "cluster/testing/fake_host.h"
#include "nemesis/clock_window.h"
#include "nemesis/shim_time.h"

namespace locksmith {
namespace {

using testing::FakeHost;
namespace st = shim_time;

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kT0 = int64_t{1'700'000'000} * 1'000'000'000;

// Nodes on fake hosts whose clocks obey the control file the nemesis wrote,
// as the shim would: TIME is FakeNs(file's parameters, now). A node in
// `unshimmed` ignores the file; one in `unreachable` does not answer.
class FakeClocks : public HasClocks {
 public:
  explicit FakeClocks(const int64_t* now) : now_(now) {}
  Host* NodeHost(const std::string& node) override {
    auto it = hosts.find(node);
    return it == hosts.end() ? nullptr : it->second;
  }
  Result<int64_t> WallClockNs(const std::string& node) override {
    if (unreachable.contains(node)) return Error{node + ": TIME: no reply"};
    FakeHost* host = hosts.at(node);
    auto file = host->file(ClockController::kControlFile);
    if (!file || unshimmed.contains(node)) return *now_;
    st::ClockParams params;
    uint64_t generation = 0;
    const auto* bytes = reinterpret_cast<const unsigned char*>(file->data());
    if (!st::DecodeControl(bytes, file->size(), &params, &generation)) return *now_;
    return st::FakeNs(params, *now_);
  }

  std::map<std::string, FakeHost*> hosts;
  std::set<std::string> unshimmed;
  std::set<std::string> unreachable;

 private:
  const int64_t* now_;
};

class ClockNemesisTest : public ::testing::Test {
 protected:
  ClockNemesisTest() {
    clocks_.hosts = {{"n1", &h1_}, {"n2", &h2_}};
  }
  std::unique_ptr<ClockNemesis> Make(std::vector<std::string> nodes = {"n1", "n2"}) {
    return std::make_unique<ClockNemesis>(clocks_, std::move(nodes), std::chrono::milliseconds(0),
                                          [this] { return now_; });
  }
  static double Observed(const FaultResult& r, const std::string& node) {
    return r.value["clocks"][node]["observed_offset_ms"].get<double>();
  }

  int64_t now_ = kT0;
  FakeHost h1_{"n1"};
  FakeHost h2_{"n2"};
  FakeClocks clocks_{&now_};
};

TEST_F(ClockNemesisTest, ABumpWritesTheFileAndIsSeenFromOutside) {
  auto nemesis = Make();
  FaultResult r = nemesis->Invoke({"clock-bump", {{"node", "n1"}, {"delta_ms", 60'000}}});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(Observed(r, "n1"), 60'000.0);
  EXPECT_EQ(r.value["clocks"]["n1"]["offset_ms"], 60'000.0);
  EXPECT_FALSE(r.value["clocks"].contains("n2"));
  EXPECT_EQ(r.value["delta_ms"], 60'000);
  EXPECT_TRUE(h1_.file(ClockController::kControlFile).has_value());
  EXPECT_FALSE(h2_.file(ClockController::kControlFile).has_value());
  // Bumps compose.
  r = nemesis->Invoke({"clock-bump", {{"node", "n1"}, {"delta_ms", -90'000}}});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(Observed(r, "n1"), -30'000.0);
}

TEST_F(ClockNemesisTest, WithoutATargetEveryNodeMoves) {
  auto nemesis = Make();
  FaultResult r = nemesis->Invoke({"clock-bump", {{"delta_ms", 1'500}}});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(Observed(r, "n1"), 1'500.0);
  EXPECT_EQ(Observed(r, "n2"), 1'500.0);
}

TEST_F(ClockNemesisTest, DriftRunsFromTheOpAndStrobeSwings) {
  auto nemesis = Make();
  ASSERT_TRUE(nemesis->Invoke({"clock-drift", {{"node", "n1"}, {"rate", 2.0}}}).ok);
  now_ += 500 * kMs;
  // A bump during the drift: the drift so far (500 ms) stays.
  FaultResult r = nemesis->Invoke({"clock-bump", {{"node", "n1"}, {"delta_ms", 0}}});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(Observed(r, "n1"), 500.0);

  const nlohmann::json strobe = {
      {"node", "n2"}, {"delta_ms", 40}, {"period_ms", 100}, {"duration_ms", 1000}};
  r = nemesis->Invoke({"clock-strobe", strobe});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(Observed(r, "n2"), 40.0);
  now_ += 60 * kMs;
  r = nemesis->Invoke({"clock-bump", {{"node", "n2"}, {"delta_ms", 0}}});
  EXPECT_EQ(Observed(r, "n2"), -40.0);
}

TEST_F(ClockNemesisTest, ResetRemovesTheFile) {
  auto nemesis = Make();
  ASSERT_TRUE(nemesis->Invoke({"clock-bump", {{"delta_ms", 5'000}}}).ok);
  FaultResult r = nemesis->Invoke({"clock-reset", nlohmann::json::object()});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(Observed(r, "n1"), 0.0);
  EXPECT_FALSE(h1_.file(ClockController::kControlFile).has_value());
  EXPECT_FALSE(h2_.file(ClockController::kControlFile).has_value());
  EXPECT_TRUE(nemesis->Teardown().empty());
}

TEST_F(ClockNemesisTest, AClockThatDoesNotMoveFailsTheOp) {
  clocks_.unshimmed.insert("n2");
  clocks_.unreachable.insert("n1");
  auto nemesis = Make();
  FaultResult r = nemesis->Invoke({"clock-bump", {{"delta_ms", 60'000}}});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("n2's clock does not show the change"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("no reply"), std::string::npos) << r.error;
  EXPECT_EQ(Observed(r, "n2"), 0.0);
  EXPECT_EQ(r.value["clocks"]["n1"]["error"], "n1: TIME: no reply");
}

TEST_F(ClockNemesisTest, BadOpsAreRefusedWithoutTouchingAnything) {
  auto nemesis = Make();
  const std::vector<std::pair<FaultOp, std::string>> bad = {
      {{"clock-bump", {{"delta_ms", "60s"}}}, "clock-bump needs an integer \"delta_ms\""},
      {{"clock-bump", {{"node", "n9"}, {"delta_ms", 1}}}, "clock-bump: no node n9 (nodes: n1, n2)"},
      {{"clock-strobe", {{"delta_ms", 1}, {"period_ms", 1}, {"duration_ms", 5}}},
       "clock-strobe \"period_ms\" must be 2 to 86400000"},
      {{"clock-drift", {{"rate", -1}}}, "clock-drift needs a \"rate\" from 0 to 1000"},
      {{"clock-jump", {}}, "clock nemesis cannot clock-jump"},
  };
  for (const auto& [op, error] : bad) {
    FaultResult r = nemesis->Invoke(op);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.error, error);
  }
  EXPECT_TRUE(h1_.writes().empty());
}

TEST_F(ClockNemesisTest, TwoNodesOnOneHostShareOneFile) {
  clocks_.hosts["n2"] = &h1_;
  auto nemesis = Make();
  FaultResult r = nemesis->Invoke({"clock-bump", {{"delta_ms", 100}}});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(h1_.writes().size(), 1u);
  EXPECT_EQ(Observed(r, "n2"), 100.0);
}

TEST_F(ClockNemesisTest, TeardownRemovesEveryFileAndReportsWhatItCouldNot) {
  auto nemesis = Make();
  ASSERT_TRUE(nemesis->Invoke({"clock-bump", {{"delta_ms", 60'000}}}).ok);
  h2_.Fail(FakeHost::Op::kRemoveFile, "read-only file system", 1);
  std::vector<HealFailure> failures = nemesis->Teardown();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].f, "clock-reset");
  EXPECT_EQ(failures[0].value, nlohmann::json({{"host", "n2"}}));
  EXPECT_EQ(failures[0].error, "read-only file system");
  EXPECT_FALSE(h1_.file(ClockController::kControlFile).has_value());
  // The failed one is still on the list; the next teardown removes it.
  EXPECT_TRUE(nemesis->Teardown().empty());
  EXPECT_FALSE(h2_.file(ClockController::kControlFile).has_value());
}

TEST(ClockControllerTest, InstallPreloadsTheShimAndNamesTheHostsFile) {
  FakeHost host("n1");
  EXPECT_FALSE(ClockController::Installed(host));
  ASSERT_TRUE(host.SetSpawnEnv("LD_PRELOAD=/opt/other.so").ok());
  ASSERT_TRUE(ClockController::Install(host, "/opt/shim.so").ok());
  ASSERT_TRUE(ClockController::Install(host, "/opt/shim.so").ok());  // idempotent
  EXPECT_TRUE(ClockController::Installed(host));
  EXPECT_EQ(host.SpawnEnv(),
            (std::vector<std::string>{"LD_PRELOAD=/opt/other.so:/opt/shim.so",
                                      "LOCKSMITH_CLOCK_FILE=/fake-hosts/n1/clock-shim.ctl"}));
  EXPECT_EQ(ClockController::Install(host, "shim.so").error(),
            "preload library 'shim.so' must be an absolute path without spaces or colons");
}

TEST(ClockControllerTest, AFailedWriteKeepsTheOldParametersButCountsTheFileAsThere) {
  FakeHost host("n1");
  ClockController controller(host);
  host.Fail(FakeHost::Op::kWriteFile, "disk full", 1);
  EXPECT_FALSE(controller.Write(st::Bumped(st::ClockParams{}, kMs)).ok());
  EXPECT_TRUE(st::IsIdentity(controller.params()));
  EXPECT_TRUE(controller.file_in_place());
  ASSERT_TRUE(controller.Write(st::Bumped(st::ClockParams{}, kMs)).ok());
  EXPECT_EQ(controller.generation(), 1u);
  auto file = host.file(ClockController::kControlFile);
  ASSERT_TRUE(file.has_value());
  EXPECT_EQ(file->size(), st::kControlSize);
}

TEST(ClockOptionsTest, DefaultsValidateAndBadValuesAreNamed) {
  OptionsOf<ClockOptions> options;
  ASSERT_TRUE(options.set().Validate().ok());
  ASSERT_TRUE(options.set().Merge({{"clock_mode", "warp"}}).ok());
  EXPECT_NE(options.set().Validate().error().find("--clock-mode"), std::string::npos);
}

TEST(ClockWindowTest, EachModeBeginsItsFaultAndResetsBeforeTheNextWindow) {
  ClockOptions o;
  o.hold_ms = 3'000;
  auto ops = ClockWindow(o, 10'000, 20'000);
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0].op.f, "clock-bump");
  EXPECT_EQ(ops[0].op.value, nlohmann::json({{"delta_ms", 60'000}}));
  EXPECT_TRUE(ops[0].mark.begins);
  EXPECT_EQ(ops[1].op.f, "clock-reset");
  EXPECT_FALSE(ops[1].mark.begins);
  EXPECT_EQ(ops[1].at_ms, 13'000);
  EXPECT_EQ(ClockWindow(o, 10'000, 11'000)[1].at_ms, 10'999);

  o.mode = "strobe";
  EXPECT_EQ(ClockWindow(o, 0, 20'000)[0].op.value,
            nlohmann::json({{"delta_ms", 60'000}, {"period_ms", 1'000}, {"duration_ms", 3'000}}));
  o.mode = "drift";
  EXPECT_EQ(ClockWindow(o, 0, 20'000)[0].op.value, nlohmann::json({{"rate", 2.0}}));
}

TEST(ClockLookTest, TheOffsetsEachNodeWasSeenAt) {
  EXPECT_EQ(DescribeFaultOp(kClockLook,
                            {"clock-bump",
                             {{"clocks", {{"n3", {{"observed_offset_ms", 10002.9},
                                                  {"offset_ms", 10000.0}}}}},
                              {"delta_ms", 10000}}},
                            "")
                .text,
            "clock-bump n3 +10 s");
  EXPECT_EQ(DescribeFaultOp(kClockLook,
                            {"clock-strobe",
                             {{"clocks", {{"n1", {{"observed_offset_ms", 60005.2}}},
                                          {"n2", {{"observed_offset_ms", 60000.1}}}}},
                              {"delta_ms", 60000},
                              {"period_ms", 1000}}},
                            "")
                .text,
            "clock-strobe n1 n2 +60 s (\xC2\xB1" "60 s every 1.000 s)");
  EXPECT_EQ(DescribeFaultOp(kClockLook, {"clock-drift", {{"node", "n2"}, {"rate", 2.5}}}, "").text,
            "clock-drift n2 (rate 2.5)");
}

}  // namespace
}  // namespace locksmith
