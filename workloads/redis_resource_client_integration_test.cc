// RedisResourceClient's fencing rule on a real redis-server (the
// RedisResourceStore on a loopback host, as a run starts it): a fence above the highest accepted
// is taken from anyone, one below it from no one, and one equal to it only
// from the acquisition that was granted it -- after a failover two
// acquisitions can hold the same fence, and the second must not pass.
#include "workloads/redis_resource_client.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include <gtest/gtest.h>
#include <boost/asio/io_context.hpp>

#include "backends/testing/run_coroutine.h"
#include "base/testing/temp_dir.h"
#include "cluster/local_cluster.h"
#include "workloads/redis_resource_store.h"
#include "cluster/testing/loopback_cluster.h"

namespace locksmith {
namespace {

namespace asio = boost::asio;
using std::chrono::milliseconds;

const std::string kKey = "item-0";

class RedisResourceClientIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cluster = testing::CreateLoopbackCluster(dir_.path(), {kResourceHost});
    ASSERT_TRUE(cluster.ok()) << cluster.error();
    cluster_ = std::move(*cluster);
    store_ = std::make_unique<RedisResourceStore>(*cluster_->FindHost(kResourceHost), "test-pw");
    Status started = store_->Start();
    ASSERT_TRUE(started.ok()) << started.error();
    client_ = store_->NewClient(io_.get_executor(), milliseconds(2000));
    ASSERT_EQ(Run([&] { return client_->Init(kKey, 10); }).outcome, Outcome::kOk);
  }
  void TearDown() override {
    if (client_) client_->Close();
    if (store_) store_->Stop();
    if (cluster_) (void)cluster_->Teardown();
  }

  // Runs one call of the client to its end.
  template <typename Call>
  ResourceReply Run(Call call) {
    ResourceReply reply;
    testing::RunCoroutine(io_, [&]() -> asio::awaitable<void> { reply = co_await call(); });
    return reply;
  }
  ResourceReply Read(std::optional<Fence> fence) {
    return Run([&] { return client_->Read(kKey, fence); });
  }
  ResourceReply Write(int64_t value, std::optional<Fence> fence) {
    return Run([&] { return client_->Write(kKey, value, "", fence); });
  }

  testing::TempDir dir_;
  std::unique_ptr<Cluster> cluster_;
  std::unique_ptr<RedisResourceStore> store_;
  asio::io_context io_;
  std::unique_ptr<ResourceClient> client_;
};

TEST_F(RedisResourceClientIntegrationTest, AnEqualFenceIsTakenOnlyFromTheAcquisitionGrantedIt) {
  const Fence a{7, "token-a"}, b{7, "token-b"};
  ASSERT_EQ(Read(a).outcome, Outcome::kOk);
  // The same acquisition writes with the fence its read registered.
  EXPECT_EQ(Write(9, a).outcome, Outcome::kOk);
  // Another acquisition granted the same fence (a failover reused it).
  const ResourceReply stale_read = Read(b);
  EXPECT_EQ(stale_read.outcome, Outcome::kFail);
  EXPECT_TRUE(stale_read.rejected);
  EXPECT_EQ(stale_read.highest, 7);
  const ResourceReply stale_write = Write(1, b);
  EXPECT_TRUE(stale_write.rejected);
  EXPECT_EQ(Read(std::nullopt).value, 9) << "the rejected write did nothing";
  EXPECT_EQ(Write(8, a).outcome, Outcome::kOk) << "the first holder goes on";
}

TEST_F(RedisResourceClientIntegrationTest, AHigherFenceIsTakenFromAnyoneALowerOneFromNoOne) {
  ASSERT_EQ(Write(9, Fence{7, "token-a"}).outcome, Outcome::kOk);
  EXPECT_EQ(Write(8, Fence{8, "token-b"}).outcome, Outcome::kOk);
  const ResourceReply lower = Write(1, Fence{7, "token-a"});
  EXPECT_TRUE(lower.rejected);
  EXPECT_EQ(lower.highest, 8);
  // The holder of 8 is now the only one an 8 is taken from.
  EXPECT_TRUE(Write(1, Fence{8, "token-a"}).rejected);
  EXPECT_EQ(Write(7, Fence{8, "token-b"}).outcome, Outcome::kOk);
  // Init forgets the fence and its holder.
  ASSERT_EQ(Run([&] { return client_->Init(kKey, 10); }).outcome, Outcome::kOk);
  EXPECT_EQ(Write(1, Fence{1, "token-c"}).outcome, Outcome::kOk);
}

TEST_F(RedisResourceClientIntegrationTest, TheCacheOpsFollowTheSameRule) {
  const Fence a{3, "token-a"}, b{3, "token-b"};
  ASSERT_EQ(Run([&] { return client_->WriteInvalidate(kKey, 5, a); }).outcome, Outcome::kOk);
  EXPECT_TRUE(Run([&] { return client_->FillCache(kKey, 4, b); }).rejected);
  EXPECT_TRUE(Run([&] { return client_->ReadCache(kKey, b); }).rejected);
  EXPECT_TRUE(Run([&] { return client_->WriteInvalidate(kKey, 1, b); }).rejected);
  EXPECT_EQ(Run([&] { return client_->FillCache(kKey, 5, a); }).outcome, Outcome::kOk);
  const ResourceReply cached = Run([&] { return client_->ReadCache(kKey, a); });
  EXPECT_TRUE(cached.found);
  EXPECT_EQ(cached.value, 5);
}

}  // namespace
}  // namespace locksmith
