// Integration tests of the kill family's power loss on a real redis-server
// started the way a run starts one: a RedisService on a loopback
// LocalCluster whose host has the power shim installed before Start(). They
// show debate row 6's mechanism: a lock Redis acknowledged is lost by a power
// loss under `appendfsync everysec` (the write sat in the page cache until
// the next second's fsync) and kept under `always`. A SIGKILL alone keeps it
// under both.
#include <chrono>
#include <filesystem>
#include <memory>
#include <thread>

#include <gtest/gtest.h>

#include "backends/client_faults.h"
#include "backends/redis_admin.h"
#include "backends/redis_service.h"
#include "base/testing/temp_dir.h"
#include "cluster/local_cluster.h"
#include "cluster/testing/loopback_cluster.h"
#include "nemesis/kill_nemesis.h"
#include "nemesis/power_journal.h"

namespace locksmith {
namespace {

using std::chrono::milliseconds;
constexpr char kPassword[] = "locksmith-power-pw";

class PowerLossRedisTest : public ::testing::Test {
 protected:
  void Start(const std::string& persistence, bool power_loss) {
    auto cluster = testing::CreateLoopbackCluster(dir_.path(), {"n1"});
    ASSERT_TRUE(cluster.ok()) << cluster.error();
    cluster_ = std::move(*cluster);
    options_.value().power_loss = power_loss;
    ASSERT_TRUE(InstallPowerShims(options_, *cluster_).ok());
    EXPECT_EQ(PowerJournal::Installed(*cluster_->FindHost("n1")), power_loss);
    RedisServiceOptions r;
    r.password = kPassword;
    r.persistence = persistence;
    service_ = std::make_unique<RedisService>(*cluster_, r);
    ASSERT_TRUE(service_->Start().ok());
    const NemesisContext context{*service_, client_faults_,
                                 1, milliseconds(1000), cluster_.get(), 1};
    ASSERT_EQ(KillUnfit(options_, context), "");
    auto nemesis = MakeKillNemesis(options_, context);
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

  // Acquires lock-0 right after a write that made everysec fsync, so the
  // lock's own write waits for the next second's fsync; then kills n1 at
  // once and restarts it. The lock's value after the restart (nil: lost),
  // and what the kill's power loss undid.
  std::pair<RedisReply, nlohmann::json> AcquireKillRestart() {
    // Early in a wall-clock second (Redis's everysec counts whole seconds).
    while (std::chrono::duration_cast<milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
                   .count() %
               1000 >
           300) {
      std::this_thread::sleep_for(milliseconds(5));
    }
    EXPECT_TRUE(Command({"SET", "warm", "1"}).ok());
    std::this_thread::sleep_for(milliseconds(100));  // its fsync is done
    auto set = Command({"SET", "lock-0", "holder-a", "PX", "30000", "NX"});
    EXPECT_TRUE(set.ok() && set->IsStatus("OK"));
    const FaultResult kill = nemesis_->Invoke({"kill", {{"node", "n1"}}});
    EXPECT_TRUE(kill.ok) << kill.error;
    const FaultResult restart = nemesis_->Invoke({"restart", {{"node", "n1"}}});
    EXPECT_TRUE(restart.ok) << restart.error;
    auto get = Command({"GET", "lock-0"});
    EXPECT_TRUE(get.ok()) << get.error();
    const nlohmann::json checks = kill.value.value("checks", nlohmann::json::object());
    return {get.ok() ? *get : RedisReply{},
            checks.contains("n1") ? checks["n1"].value("power_loss", nlohmann::json()) : nullptr};
  }

  testing::TempDir dir_{"locksmith-power"};
  OptionsOf<KillOptions> options_;
  ClientFaults client_faults_;
  std::unique_ptr<Cluster> cluster_;
  std::unique_ptr<RedisService> service_;
  std::unique_ptr<Nemesis> nemesis_;
};

TEST_F(PowerLossRedisTest, EverysecLosesAnAcknowledgedLock) {
  Start("everysec", true);
  const auto [lock, undone] = AcquireKillRestart();
  EXPECT_EQ(lock.type, RedisReply::Type::kNil);
  ASSERT_TRUE(undone.is_object()) << undone.dump();
  EXPECT_GE(undone["files_truncated"].get<int>(), 1);
  // The journal was emptied by the replay; the restarted server writes a
  // new one in the run's directory.
  const std::string journal = cluster_->FindHost("n1")->PathOf(PowerJournal::kDirectory);
  EXPECT_TRUE(std::filesystem::is_directory(journal));
}

TEST_F(PowerLossRedisTest, AlwaysKeepsTheLock) {
  Start("always", true);
  const auto [lock, undone] = AcquireKillRestart();
  ASSERT_EQ(lock.type, RedisReply::Type::kString);
  EXPECT_EQ(lock.str, "holder-a");
  ASSERT_TRUE(undone.is_object()) << undone.dump();
  EXPECT_EQ(undone["files_truncated"].get<int>() + undone["writes_undone"].get<int>(), 0);
}

TEST_F(PowerLossRedisTest, ASigkillAloneKeepsTheLockUnderEverysec) {
  Start("everysec", false);
  const auto [lock, undone] = AcquireKillRestart();
  ASSERT_EQ(lock.type, RedisReply::Type::kString);
  EXPECT_EQ(lock.str, "holder-a");
  EXPECT_TRUE(undone.is_null());
}

}  // namespace
}  // namespace locksmith
