// EtcdLockClient against a fake JSON gateway (FakeEtcdGateway): the calls an
// acquire and a release make and what they send, the fence from the lock
// key's create revision, and the outcome table: a lock not granted within
// the wait (busy once the lease is revoked, unknown when the revoke gets no
// answer either), a lease the server no longer knows (on the lock call, on
// the release, on a keep-alive: the lock reported lost).
#include "backends/etcd_lock_client.h"

#include <gtest/gtest.h>

#include <map>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "backends/testing/fake_etcd_gateway.h"
#include "backends/testing/run_coroutine.h"

namespace locksmith {
namespace {

namespace asio = boost::asio;
using std::chrono::milliseconds;
using testing::FakeEtcdGateway;
using testing::RunCoroutine;

constexpr char kLeaseGone[] =
    R"({"error":"etcdserver: requested lease not found","message":"etcdserver: requested lease not found","code":5})";

// A healthy member: lease 7 (TTL 2 s), granted at once, create revision 42.
FakeEtcdGateway::Reply Healthy(const std::string& path) {
  if (path == "/v3/lease/grant") return {200, R"({"ID":"7","TTL":"2"})"};
  if (path == "/v3/lock/lock") return {200, "{\"key\":\"" + Base64Encode("lock-0/7") + "\"}"};
  if (path == "/v3/kv/range") return {200, R"({"kvs":[{"create_revision":"42"}],"count":"1"})"};
  if (path == "/v3/lease/keepalive") return {200, R"({"result":{"ID":"7","TTL":"2"}})"};
  return {200, R"({"header":{}})"};  // unlock, revoke
}

class EtcdLockClientTest : public ::testing::Test {
 protected:
  EtcdLockClientTest()
      : server_(io_.get_executor(), [this](const std::string& path, const nlohmann::json&) {
          auto it = overrides_.find(path);
          return it != overrides_.end() ? it->second : Healthy(path);
        }) {}
  ~EtcdLockClientTest() override { server_.Stop(); }

  std::unique_ptr<EtcdLockClient> NewClient() {
    EtcdLockClientOptions o;
    o.members = {{"127.0.0.1", server_.port()}};
    o.timeout = milliseconds(200);
    auto client = std::make_unique<EtcdLockClient>(io_.get_executor(), o, 1);
    client->SetEventSink([this](LockEvent e) { events_.push_back(std::move(e)); });
    return client;
  }
  AcquireResult Acquire(EtcdLockClient& client, milliseconds lease = milliseconds(1000)) {
    AcquireResult r;
    RunCoroutine(io_, [&]() -> asio::awaitable<void> { r = co_await client.Acquire("lock-0", lease); });
    return r;
  }
  ReleaseResult Release(EtcdLockClient& client, const std::string& token) {
    ReleaseResult r;
    RunCoroutine(io_, [&]() -> asio::awaitable<void> { r = co_await client.Release("lock-0", token); });
    return r;
  }

  asio::io_context io_;
  std::map<std::string, FakeEtcdGateway::Reply> overrides_;
  std::vector<LockEvent> events_;
  FakeEtcdGateway server_;
};

TEST_F(EtcdLockClientTest, AnAcquireLocksWithItsLeaseAndIsFencedByTheCreateRevision) {
  auto client = NewClient();
  const AcquireResult r = Acquire(*client, milliseconds(1500));
  ASSERT_EQ(r.outcome, Outcome::kOk) << r.error;
  EXPECT_EQ(r.fence, 42);
  EXPECT_GT(r.validity_ms, 0);
  EXPECT_LE(r.validity_ms, 2000);
  EXPECT_EQ(r.detail["lease_id"], "7");
  EXPECT_EQ(server_.paths(),
            (std::vector<std::string>{"/v3/lease/grant", "/v3/lock/lock", "/v3/kv/range"}));
  EXPECT_EQ(server_.requests()[0].body, (nlohmann::json{{"TTL", 2}}));  // 1.5 s rounded up
  EXPECT_EQ(server_.requests()[1].body,
            (nlohmann::json{{"name", Base64Encode("lock-0")}, {"lease", "7"}}));
  EXPECT_EQ(server_.requests()[2].body["key"], Base64Encode("lock-0/7"));

  const ReleaseResult released = Release(*client, r.token);
  EXPECT_EQ(released.outcome, Outcome::kOk) << released.error;
  const auto paths = server_.paths();
  ASSERT_EQ(paths.size(), 5u);
  EXPECT_EQ(paths[3], "/v3/lock/unlock");
  EXPECT_EQ(server_.requests()[3].body["key"], Base64Encode("lock-0/7"));
  EXPECT_EQ(paths[4], "/v3/lease/revoke");
  EXPECT_EQ(server_.requests()[4].body, (nlohmann::json{{"ID", "7"}}));
  EXPECT_EQ(Release(*client, r.token).outcome, Outcome::kFail) << "released twice";
}

TEST_F(EtcdLockClientTest, ALockNotGrantedWithinTheWaitIsBusyOnceItsLeaseIsRevoked) {
  overrides_["/v3/lock/lock"] = {200, "", false};
  auto client = NewClient();
  const AcquireResult r = Acquire(*client);
  EXPECT_EQ(r.outcome, Outcome::kFail) << r.error;
  EXPECT_TRUE(r.busy);
  EXPECT_EQ(server_.paths().back(), "/v3/lease/revoke");
}

TEST_F(EtcdLockClientTest, ALockMaybeGrantedWhoseLeaseCannotBeRevokedIsUnknown) {
  overrides_["/v3/lock/lock"] = {200, "", false};
  overrides_["/v3/lease/revoke"] = {200, "", false};
  auto client = NewClient();
  const AcquireResult r = Acquire(*client);
  EXPECT_EQ(r.outcome, Outcome::kUnknown) << r.error;
  EXPECT_FALSE(r.busy);
  const auto paths = server_.paths();
  EXPECT_EQ(std::count(paths.begin(), paths.end(), "/v3/lease/revoke"), 2) << "tried twice";
}

TEST_F(EtcdLockClientTest, ALeaseTheServerNoLongerKnowsIsACertainFailOfTheLock) {
  overrides_["/v3/lock/lock"] = {500, kLeaseGone};
  auto client = NewClient();
  const AcquireResult r = Acquire(*client);
  EXPECT_EQ(r.outcome, Outcome::kFail);
  EXPECT_FALSE(r.busy);
  EXPECT_NE(r.error.find("requested lease not found"), std::string::npos) << r.error;
}

TEST_F(EtcdLockClientTest, NoLeaseNoLock) {
  overrides_["/v3/lease/grant"] = {200, "", false};
  auto client = NewClient();
  const AcquireResult r = Acquire(*client);
  EXPECT_EQ(r.outcome, Outcome::kFail);
  EXPECT_EQ(server_.paths(), std::vector<std::string>{"/v3/lease/grant"});
}

TEST_F(EtcdLockClientTest, AReleaseAfterTheLeaseExpiredSaysTheLockWasLost) {
  auto client = NewClient();
  const AcquireResult r = Acquire(*client);
  ASSERT_EQ(r.outcome, Outcome::kOk) << r.error;
  overrides_["/v3/lease/revoke"] = {404, kLeaseGone};
  const ReleaseResult released = Release(*client, r.token);
  EXPECT_EQ(released.outcome, Outcome::kFail);
  EXPECT_EQ(released.error.rfind("lock lost", 0), 0u) << released.error;
}

TEST_F(EtcdLockClientTest, AKeepAliveThatFindsTheLeaseGoneReportsTheLockLost) {
  overrides_["/v3/lease/grant"] = {200, R"({"ID":"7","TTL":"1"})"};
  overrides_["/v3/lease/keepalive"] = {200, R"({"result":{"ID":"7"}})"};
  auto client = NewClient();
  const AcquireResult r = Acquire(*client);
  ASSERT_EQ(r.outcome, Outcome::kOk) << r.error;
  // The first keep-alive is due a third of the TTL after the grant.
  RunCoroutine(io_, [&]() -> asio::awaitable<void> {
    asio::steady_timer timer(io_.get_executor());
    for (int i = 0; i < 100 && events_.size() < 2; ++i) {
      timer.expires_after(milliseconds(50));
      co_await timer.async_wait(asio::use_awaitable);
    }
  });
  ASSERT_EQ(events_.size(), 2u);
  EXPECT_EQ(events_[0].kind, LockEvent::Kind::kRenewed);
  EXPECT_EQ(events_[0].outcome, Outcome::kFail);
  EXPECT_EQ(events_[1].kind, LockEvent::Kind::kLost);
  EXPECT_EQ(events_[1].token, r.token);
  EXPECT_EQ(client->Counters().at("locks_lost"), 1);
  const ReleaseResult released = Release(*client, r.token);
  EXPECT_EQ(released.outcome, Outcome::kFail);
  EXPECT_EQ(released.error.rfind("lock lost", 0), 0u) << released.error;
}

TEST_F(EtcdLockClientTest, AClosedClientSendsNothing) {
  auto client = NewClient();
  client->Close();
  EXPECT_EQ(Acquire(*client).outcome, Outcome::kFail);
  EXPECT_TRUE(server_.requests().empty());
}

}  // namespace
}  // namespace locksmith
