// Integration tests for SentinelService on a loopback LocalCluster of three
// hosts with real redis-server and redis-sentinel processes: the topology is
// ready (replicas attached, sentinels know each other), killing the master
// makes the sentinels promote a replica (Primary() and Table() follow), the
// old master started again rejoins as a replica of the new one, a
// SentinelLockClient follows the failover, and Stop + Teardown leave no
// process behind.
#include "backends/sentinel_service.h"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <vector>
#include <memory>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <boost/asio/io_context.hpp>

#include "backends/redis_admin.h"
#include "backends/testing/run_coroutine.h"
#include "base/testing/temp_dir.h"
#include "cluster/local_cluster.h"
#include "cluster/testing/loopback_cluster.h"

namespace locksmith {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

class SentinelServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cluster = testing::CreateLoopbackCluster(dir_.path(), {"n1", "n2", "n3"});
    ASSERT_TRUE(cluster.ok()) << cluster.error();
    cluster_ = std::move(*cluster);
    SentinelServiceOptions s;
    s.redis.password = "sentinel-test-pw";
    s.down_after_ms = 1000;
    s.failover_timeout_ms = 3000;
    service_ = std::make_unique<SentinelService>(*cluster_, s);
  }
  void TearDown() override {
    if (service_) service_->Stop();
    if (cluster_) {
      EXPECT_TRUE(cluster_->Teardown().ok());
    }
  }

  // Polls Primary() until it names someone other than `old` (bounded).
  std::string AwaitNewPrimary(const std::string& old) {
    const auto give_up = std::chrono::steady_clock::now() + 30s;
    while (std::chrono::steady_clock::now() < give_up) {
      auto p = service_->Primary();
      if (p.ok() && *p != old) return *p;
      std::this_thread::sleep_for(100ms);
    }
    return old;
  }

  std::string Role(const std::string& node) {
    const ServiceNode* n = FindServiceNode(service_->Table(), node);
    auto r = RedisCommandOnce({n->address, static_cast<uint16_t>(n->port), "sentinel-test-pw"},
                              {"ROLE"}, 1000ms);
    if (!r.ok() || r->elements.empty()) return "?";
    return r->elements[0].str;
  }

  testing::TempDir dir_;
  std::unique_ptr<Cluster> cluster_;
  std::unique_ptr<SentinelService> service_;
};

TEST_F(SentinelServiceTest, FailsOverWhenTheMasterDiesAndTheOldMasterRejoinsAsReplica) {
  Status started = service_->Start();
  ASSERT_TRUE(started.ok()) << started.error();
  auto primary = service_->Primary();
  ASSERT_TRUE(primary.ok()) << primary.error();
  EXPECT_EQ(*primary, "n1");
  EXPECT_EQ(NodesWithRole(service_->Table(), kReplicaRole),
            (std::vector<std::string>{"n2", "n3"}));
  EXPECT_EQ(NodesWithRole(service_->Table(), "sentinel").size(), 3u);
  EXPECT_EQ(Role("n2"), "slave");

  asio::io_context io;
  auto client = service_->NewClient(io.get_executor(), ClientSlot{0, 1, ""});
  testing::RunCoroutine(io, [&]() -> asio::awaitable<void> {
    Status c = co_await client->Connect();
    EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error());
    EXPECT_EQ((co_await client->Acquire("a", 10000ms)).outcome, Outcome::kOk);
  });

  std::mutex mu;
  std::vector<ServiceEvent> events;
  ASSERT_TRUE(service_->WatchEvents([&](ServiceEvent e) {
    std::lock_guard lock(mu);
    events.push_back(std::move(e));
  }).ok());
  // Events published before the subscriptions are lost: WatchEvents returns
  // once every sentinel has confirmed.
  ASSERT_TRUE(service_->EventsSubscribed());
  ASSERT_TRUE(service_->KillNode("n1").ok());
  const std::string promoted = AwaitNewPrimary("n1");
  ASSERT_NE(promoted, "n1") << "no failover within 30 s";
  EXPECT_EQ(NodesWithRole(service_->Table(), kPrimaryRole),
            std::vector<std::string>{promoted});
  EXPECT_EQ(Role(promoted), "master");
  service_->StopEvents();
  {
    std::lock_guard lock(mu);
    bool switched = false, odown = false;
    const ServiceEventKinds declared = service_->EventKinds();
    for (const auto& e : events) {
      // Every event is of a kind the service declares, naming its reporter.
      EXPECT_TRUE(std::any_of(declared.kinds.begin(), declared.kinds.end(),
                              [&](const ServiceEventKind& k) { return k.name == e.f; }))
          << e.f;
      EXPECT_TRUE(e.value.contains(declared.reporter_field)) << e.value;
      switched |= e.f == "+switch-master" && e.value["from"] == "n1" && e.value["to"] == promoted;
      odown |= e.f == "+odown" && e.value["node"] == "n1";
    }
    EXPECT_TRUE(switched) << events.size() << " events";
    EXPECT_TRUE(odown);
  }

  // The client finds the new master (after at most one unknown or failed
  // call on the dead one).
  testing::RunCoroutine(io, [&]() -> asio::awaitable<void> {
    Outcome last = Outcome::kFail;
    for (int i = 0; i < 20 && last != Outcome::kOk; ++i) {
      last = (co_await client->Acquire("b", 10000ms)).outcome;
    }
    EXPECT_EQ(last, Outcome::kOk);
    client->Close();
  });

  Status restarted = service_->StartNode("n1");
  ASSERT_TRUE(restarted.ok()) << restarted.error();
  EXPECT_EQ(Role("n1"), "slave");
  EXPECT_EQ(*service_->Primary(), promoted);
  auto time = service_->WallClockNs("n1");
  ASSERT_TRUE(time.ok()) << time.error();
  // A sentinel answers no TIME but tells its clock in INFO: the same host's
  // clock as its data node's, read a moment later.
  auto sentinel_time = service_->WallClockNs("s1");
  ASSERT_TRUE(sentinel_time.ok()) << sentinel_time.error();
  EXPECT_GE(*sentinel_time, *time - 1'000'000'000);
  EXPECT_LE(*sentinel_time, *time + 5'000'000'000);
}

TEST_F(SentinelServiceTest, PausedSentinelDoesNotHideTheMaster) {
  Status started = service_->Start();
  ASSERT_TRUE(started.ok()) << started.error();
  ASSERT_TRUE(service_->PauseNode("s1").ok());
  auto primary = service_->Primary();
  EXPECT_TRUE(primary.ok());
  ASSERT_TRUE(service_->ResumeNode("s1").ok());
  ASSERT_TRUE(service_->KillNode("s2").ok());
  ASSERT_TRUE(service_->StartNode("s2").ok());
}

}  // namespace
}  // namespace locksmith
