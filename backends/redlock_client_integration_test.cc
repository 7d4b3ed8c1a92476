// Integration tests for the redlock backend and RedlockClient against five
// real redis-server masters started the way a run starts them
// (MakeRedlockService on a loopback LocalCluster in a temp dir): one token
// on every master, a quorum with two masters down, fail without one, the
// grantors in the acquire's detail, and a paused master costing the
// parallel client one node timeout but the sequential one a timeout each.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <boost/asio/io_context.hpp>

#include "backends/backend_registry.h"
#include "backends/redis_service.h"
#include "backends/redlock_client.h"
#include "backends/redlock_service.h"
#include "backends/testing/run_coroutine.h"
#include "base/testing/temp_dir.h"
#include "cluster/local_cluster.h"
#include "cluster/testing/loopback_cluster.h"

namespace locksmith {
namespace {

namespace asio = boost::asio;
using std::chrono::milliseconds;

class RedlockIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cluster = testing::CreateLoopbackCluster(dir_.path(), {"n1", "n2", "n3", "n4", "n5"});
    ASSERT_TRUE(cluster.ok()) << cluster.error();
    cluster_ = std::move(*cluster);
    options_ = MakeOptions<RedlockOptions>();
    // Timeouts far apart from scheduling noise: 200 ms per master.
    ASSERT_TRUE(options_->set().Merge({{"redlock_node_timeout_ms", 200}}).ok());
    BackendContext context{*cluster_, 11, milliseconds(500)};
    auto service = MakeRedlockService(*options_, context);
    ASSERT_TRUE(service.ok()) << service.error();
    service_ = std::move(*service);
    Status started = service_->Start();
    ASSERT_TRUE(started.ok()) << started.error();
  }
  void TearDown() override {
    if (service_) service_->Stop();
    if (cluster_) (void)cluster_->Teardown();
  }

  // A redlock client with the backend's defaults.
  std::unique_ptr<LockClient> NewClient(uint64_t seed) {
    return service_->NewClient(ioc_.get_executor(), ClientSlot{0, seed, ""});
  }
  Killable& Kill() { return *Capability<Killable>(*service_); }
  Pausable& Pause() { return *Capability<Pausable>(*service_); }

  testing::TempDir dir_;
  std::unique_ptr<Cluster> cluster_;
  std::unique_ptr<ModuleOptions> options_;
  std::unique_ptr<LockService> service_;
  asio::io_context ioc_;
};

TEST_F(RedlockIntegrationTest, OneTokenOnEveryMasterAndAReleaseEverywhere) {
  ASSERT_EQ(service_->Backend(), "redlock");
  ASSERT_EQ(service_->Nodes().size(), 5u);
  auto a = NewClient(1), b = NewClient(2);
  AcquireResult ra, rb;
  ReleaseResult rel;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    Status s = co_await a->Connect();
    EXPECT_TRUE(s.ok()) << s.error();
    ra = co_await a->Acquire("k", milliseconds(10000));
    rb = co_await b->Acquire("k", milliseconds(10000));
    rel = co_await a->Release("k", ra.token);
  });
  ASSERT_EQ(ra.outcome, Outcome::kOk) << ra.error;
  EXPECT_EQ(ra.detail["granted"].size(), 5u);
  EXPECT_GT(ra.validity_ms, 10000 - 112 - 100);
  EXPECT_EQ(rb.outcome, Outcome::kFail) << rb.error;
  EXPECT_EQ(rel.outcome, Outcome::kOk) << rel.error;
}

TEST_F(RedlockIntegrationTest, TwoMastersDownStillAQuorumThreeDownFails) {
  ASSERT_TRUE(Kill().KillNode("n1").ok());
  ASSERT_TRUE(Kill().KillNode("n2").ok());
  auto a = NewClient(1);
  AcquireResult with_three, with_two;
  ReleaseResult rel;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    with_three = co_await a->Acquire("k", milliseconds(10000));
    rel = co_await a->Release("k", with_three.token);
  });
  ASSERT_TRUE(Kill().KillNode("n3").ok());
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    with_two = co_await a->Acquire("k", milliseconds(10000));
  });
  ASSERT_EQ(with_three.outcome, Outcome::kOk) << with_three.error;
  EXPECT_EQ(with_three.detail["granted"], (nlohmann::json{"n3", "n4", "n5"}));
  EXPECT_EQ(rel.outcome, Outcome::kOk) << rel.error;
  EXPECT_EQ(with_two.outcome, Outcome::kFail) << with_two.error;
  EXPECT_EQ(with_two.detail["granted"], (nlohmann::json{"n4", "n5"}));
  EXPECT_TRUE(with_two.token.empty());
  for (const char* n : {"n1", "n2", "n3"}) ASSERT_TRUE(Kill().StartNode(n).ok());
}

TEST_F(RedlockIntegrationTest, APausedMasterCostsTheParallelClientOneTimeoutOnly) {
  auto parallel = NewClient(1);
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    Status s = co_await parallel->Connect();  // SETs then go out on open sockets
    EXPECT_TRUE(s.ok()) << s.error();
  });
  ASSERT_TRUE(Pause().PauseNode("n2").ok());
  ASSERT_TRUE(Pause().PauseNode("n4").ok());
  AcquireResult got;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    got = co_await parallel->Acquire("k", milliseconds(10000));
  });
  ASSERT_TRUE(Pause().ResumeNode("n2").ok());
  ASSERT_TRUE(Pause().ResumeNode("n4").ok());
  ASSERT_EQ(got.outcome, Outcome::kOk) << got.error;
  EXPECT_EQ(got.detail["granted"], (nlohmann::json{"n1", "n3", "n5"}));
  EXPECT_EQ(got.detail["in_doubt"], (nlohmann::json{"n2", "n4"}));
  // Both timeouts (200 ms each) ran at once.
  EXPECT_GE(got.detail["elapsed_ms"].get<int64_t>(), 200);
  EXPECT_LT(got.detail["elapsed_ms"].get<int64_t>(), 400);
}

TEST(RedlockSequentialIntegrationTest, TheSequentialClientWaitsOutEachPausedMaster) {
  testing::TempDir dir;
  auto cluster = testing::CreateLoopbackCluster(dir.path(), {"n1", "n2", "n3", "n4", "n5"});
  ASSERT_TRUE(cluster.ok()) << cluster.error();
  auto options = MakeOptions<RedlockOptions>();
  ASSERT_TRUE(options->set().Merge({{"redlock_sequential", true}}).ok());
  auto service = MakeRedlockService(*options, BackendContext{**cluster, 5, milliseconds(500)});
  ASSERT_TRUE(service.ok()) << service.error();
  ASSERT_TRUE((*service)->Start().ok());
  asio::io_context ioc;
  auto client = (*service)->NewClient(ioc.get_executor(), ClientSlot{0, 1, ""});
  testing::RunCoroutine(ioc, [&]() -> asio::awaitable<void> { (void)co_await client->Connect(); });
  Pausable& pause = *Capability<Pausable>(**service);
  ASSERT_TRUE(pause.PauseNode("n1").ok());
  ASSERT_TRUE(pause.PauseNode("n2").ok());
  AcquireResult got;
  testing::RunCoroutine(ioc, [&]() -> asio::awaitable<void> {
    got = co_await client->Acquire("k", milliseconds(10000));
  });
  (void)pause.ResumeNode("n1");
  (void)pause.ResumeNode("n2");
  (*service)->Stop();
  (void)(*cluster)->Teardown();
  ASSERT_EQ(got.outcome, Outcome::kOk) << got.error;
  EXPECT_GE(got.detail["elapsed_ms"].get<int64_t>(), 100) << "one timeout after the other";
}

}  // namespace
}  // namespace locksmith
