// Integration tests of the clock shim and ClockNemesis on a real
// redis-server started the way a run starts one: a RedisService on a
// loopback LocalCluster whose host has the shim installed before Start().
// They show the debate's mechanism (Redis expires keys by the wall clock:
// a +60 s jump expires a 30 s lock key at once) and that each op is seen
// through TIME, and that no control file outlives the nemesis.
#include <chrono>
#include <filesystem>
#include <memory>
#include <thread>

#include <gtest/gtest.h>

#include "backends/redis_admin.h"
#include "backends/redis_service.h"
#include "base/testing/temp_dir.h"
#include "cluster/local_cluster.h"
#include "cluster/testing/loopback_cluster.h"
#include "nemesis/clock_controller.h"
#include "nemesis/clock_nemesis.h"

namespace locksmith {
namespace {

using std::chrono::milliseconds;
constexpr char kPassword[] = "locksmith-clock-pw";
constexpr int64_t kMs = 1'000'000;

class ClockShimRedisTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cluster = testing::CreateLoopbackCluster(dir_.path(), {"n1"});
    ASSERT_TRUE(cluster.ok()) << cluster.error();
    cluster_ = std::move(*cluster);
    auto shim = FindClockShimLibrary();
    ASSERT_TRUE(shim.ok()) << shim.error();
    host_ = cluster_->FindHost("n1");
    ASSERT_TRUE(ClockController::Install(*host_, *shim).ok());
    RedisServiceOptions r;
    r.password = kPassword;
    service_ = std::make_unique<RedisService>(*cluster_, r);
    ASSERT_TRUE(service_->Start().ok());
    ClockOptions options;
    auto nemesis = MakeClockNemesis(options, *service_);
    ASSERT_TRUE(nemesis.ok()) << nemesis.error();
    nemesis_ = std::move(*nemesis);
  }
  void TearDown() override {
    if (nemesis_) {
      EXPECT_TRUE(nemesis_->Teardown().empty());
    }
    if (service_) service_->Stop();
    if (cluster_) (void)cluster_->Teardown();
  }

  Result<RedisReply> Command(const std::vector<std::string>& args) {
    const ServiceNode& n1 = service_->Table().at(0);
    return RedisCommandOnce({n1.address, static_cast<uint16_t>(n1.port), kPassword}, args,
                            milliseconds(2000));
  }
  // The node's clock minus the controller's, from TIME.
  int64_t OffsetNs() {
    const int64_t before = ClockNemesis::SystemWallClockNs();
    auto clock = service_->WallClockNs("n1");
    const int64_t after = ClockNemesis::SystemWallClockNs();
    EXPECT_TRUE(clock.ok()) << clock.error();
    return clock.ok() ? *clock - (before + after) / 2 : 0;
  }
  bool ControlFileExists() const {
    return std::filesystem::exists(host_->PathOf(ClockController::kControlFile));
  }

  testing::TempDir dir_{"locksmith-clock"};
  std::unique_ptr<Cluster> cluster_;
  Host* host_ = nullptr;
  std::unique_ptr<RedisService> service_;
  std::unique_ptr<Nemesis> nemesis_;
};

TEST_F(ClockShimRedisTest, ABumpPastTheLeaseExpiresTheLockKeyAtOnceAndResetUndoesIt) {
  EXPECT_LT(std::llabs(OffsetNs()), 100 * kMs);  // the shim alone changes nothing
  auto set = Command({"SET", "lock-0", "holder-a", "PX", "30000", "NX"});
  ASSERT_TRUE(set.ok() && set->IsStatus("OK"));

  FaultResult bump = nemesis_->Invoke({"clock-bump", {{"delta_ms", 60'000}}});
  ASSERT_TRUE(bump.ok) << bump.error;
  EXPECT_TRUE(ControlFileExists());
  const double observed = bump.value["clocks"]["n1"]["observed_offset_ms"].get<double>();
  EXPECT_NEAR(observed, 60'000.0, 100.0);
  EXPECT_NEAR(static_cast<double>(OffsetNs()) / kMs, 60'000.0, 100.0);
  // The 30 s lease is gone: another client's NX acquire succeeds.
  auto get = Command({"GET", "lock-0"});
  ASSERT_TRUE(get.ok());
  EXPECT_EQ(get->type, RedisReply::Type::kNil);
  auto steal = Command({"SET", "lock-0", "holder-b", "PX", "30000", "NX"});
  ASSERT_TRUE(steal.ok());
  EXPECT_TRUE(steal->IsStatus("OK"));

  FaultResult reset = nemesis_->Invoke({"clock-reset", nlohmann::json::object()});
  ASSERT_TRUE(reset.ok) << reset.error;
  EXPECT_FALSE(ControlFileExists());
  EXPECT_LT(std::llabs(OffsetNs()), 100 * kMs);
}

TEST_F(ClockShimRedisTest, StrobeSwingsBothWaysAndDriftRunsFast) {
  FaultResult strobe = nemesis_->Invoke(
      {"clock-strobe", {{"delta_ms", 5'000}, {"period_ms", 200}, {"duration_ms", 1'000}}});
  ASSERT_TRUE(strobe.ok) << strobe.error;
  bool ahead = false, behind = false;
  for (int i = 0; i < 60 && !(ahead && behind); ++i) {
    const int64_t offset = OffsetNs();
    ahead = ahead || offset > 4'000 * kMs;
    behind = behind || offset < -4'000 * kMs;
    std::this_thread::sleep_for(milliseconds(15));
  }
  EXPECT_TRUE(ahead && behind);
  std::this_thread::sleep_for(milliseconds(1'000));  // the strobe is over
  EXPECT_LT(std::llabs(OffsetNs()), 100 * kMs);

  FaultResult drift = nemesis_->Invoke({"clock-drift", {{"rate", 3.0}}});
  ASSERT_TRUE(drift.ok) << drift.error;
  const int64_t start = OffsetNs();
  std::this_thread::sleep_for(milliseconds(500));
  // Three times as fast: 1000 ms more after 500 ms (TIME's round trips aside).
  EXPECT_NEAR(static_cast<double>(OffsetNs() - start) / kMs, 1'000.0, 150.0);
}

TEST_F(ClockShimRedisTest, TeardownRemovesTheControlFileAndTheClockIsRealAgain) {
  ASSERT_TRUE(nemesis_->Invoke({"clock-bump", {{"delta_ms", -3'600'000}}}).ok);
  EXPECT_TRUE(ControlFileExists());
  EXPECT_TRUE(nemesis_->Teardown().empty());
  EXPECT_FALSE(ControlFileExists());
  std::this_thread::sleep_for(milliseconds(10));  // the shim looks every ms
  EXPECT_LT(std::llabs(OffsetNs()), 100 * kMs);
}

}  // namespace
}  // namespace locksmith
