// Integration tests for RedisLockClient against a real redis-server started
// the way a run starts one: a RedisService (password, no persistence) on a
// loopback LocalCluster in a temp dir, so the server is spawned, paused,
// killed and restarted by the real ProcessSupervisor and torn down with the
// cluster even when a test fails (and dies with the test binary).
#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "backends/redis_admin.h"
#include "backends/redis_lock_client.h"
#include "backends/redis_reentrant_lock_client.h"
#include "backends/redis_service.h"
#include "backends/testing/run_coroutine.h"
#include "backends/watchdog_lock_client.h"
#include "base/testing/temp_dir.h"
#include "cluster/local_cluster.h"
#include "cluster/testing/loopback_cluster.h"

namespace locksmith {
namespace {

namespace asio = boost::asio;
using std::chrono::milliseconds;

constexpr char kPassword[] = "locksmith-test-pw";

// One redis-server node "n1" of a RedisService on a loopback cluster.
// Thread-safety: none.
class RedisServerProcess {
 public:
  RedisServerProcess() {
    auto cluster = testing::CreateLoopbackCluster(dir_.path(), {"n1"});
    if (!cluster.ok()) {
      error_ = cluster.error();
      return;
    }
    cluster_ = std::move(*cluster);
    RedisServiceOptions r;
    r.password = kPassword;
    r.persistence = "none";
    service_ = std::make_unique<RedisService>(*cluster_, r);
  }
  ~RedisServerProcess() {
    if (service_) service_->Stop();
    if (cluster_) (void)cluster_->Teardown();
  }
  RedisServerProcess(const RedisServerProcess&) = delete;
  RedisServerProcess& operator=(const RedisServerProcess&) = delete;

  uint16_t port() const { return static_cast<uint16_t>(service_->Table().at(0).port); }

  // Starts the server (again, on the same port after Kill) and waits until
  // it answers an authenticated PING; the error says why not.
  Status Start() {
    if (!service_) return Error{"no cluster: " + error_};
    return service_->StartNode("n1");
  }
  void Kill() { (void)service_->KillNode("n1"); }
  void Pause() { (void)service_->PauseNode("n1"); }
  void Resume() { (void)service_->ResumeNode("n1"); }

  // Runs one admin command on a fresh connection; returns the reply as text
  // ("(nil)" for nil), or nullopt if the server is unreachable.
  std::optional<std::string> Admin(const std::vector<std::string>& args) const {
    auto r = RedisCommandOnce({"127.0.0.1", port(), kPassword}, args, milliseconds(2000));
    if (!r.ok()) return std::nullopt;
    switch (r->type) {
      case RedisReply::Type::kNil: return "(nil)";
      case RedisReply::Type::kInteger: return std::to_string(r->integer);
      default: return r->str;
    }
  }

 private:
  testing::TempDir dir_;
  std::string error_;
  std::unique_ptr<Cluster> cluster_;
  std::unique_ptr<RedisService> service_;
};

// Resumes a paused server even when an assertion returns early.
class ResumeGuard {
 public:
  explicit ResumeGuard(RedisServerProcess& s) : s_(s) {}
  ~ResumeGuard() { s_.Resume(); }

 private:
  RedisServerProcess& s_;
};

asio::awaitable<void> Sleep(milliseconds d) {
  asio::steady_timer t(co_await asio::this_coro::executor, d);
  co_await t.async_wait(asio::use_awaitable);
}

class RedisLockClientIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Status started = server_.Start();
    ASSERT_TRUE(started.ok()) << "redis-server did not start: " << started.error();
  }

  RedisLockClientOptions Options(milliseconds timeout = milliseconds(1000)) {
    RedisLockClientOptions o;
    o.endpoint = {"127.0.0.1", server_.port(), kPassword};
    o.timeout = timeout;
    return o;
  }
  std::unique_ptr<RedisLockClient> NewClient(uint64_t seed,
                                             milliseconds timeout = milliseconds(1000)) {
    return std::make_unique<RedisLockClient>(ioc_.get_executor(), Options(timeout), seed);
  }
  Status ConnectNow(RedisLockClient& c) {
    std::optional<Status> s;
    testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> { s = co_await c.Connect(); });
    return *s;
  }

  asio::io_context ioc_;
  RedisServerProcess server_;
};

TEST_F(RedisLockClientIntegrationTest, AcquireAndReleaseSemantics) {
  auto a = NewClient(1);
  ASSERT_TRUE(ConnectNow(*a).ok());
  AcquireResult first, again, third;
  ReleaseResult rel, rel_again;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    first = co_await a->Acquire("k", milliseconds(10000));
    again = co_await a->Acquire("k", milliseconds(10000));  // a new token: not reentrant
    rel = co_await a->Release("k", first.token);
    rel_again = co_await a->Release("k", first.token);
    third = co_await a->Acquire("k", milliseconds(10000));
  });
  EXPECT_EQ(first.outcome, Outcome::kOk) << first.error;
  EXPECT_GT(first.validity_ms, 0);
  EXPECT_LE(first.validity_ms, 10000);
  auto pttl = server_.Admin({"PTTL", "k"});
  ASSERT_TRUE(pttl.has_value());
  EXPECT_GT(std::stol(*pttl), 0);
  EXPECT_EQ(again.outcome, Outcome::kFail);
  EXPECT_EQ(rel.outcome, Outcome::kOk) << rel.error;
  EXPECT_EQ(rel_again.outcome, Outcome::kFail);
  EXPECT_EQ(third.outcome, Outcome::kOk) << third.error;
  EXPECT_EQ(server_.Admin({"GET", "k"}), std::optional<std::string>(third.token));
  EXPECT_EQ(a->noscript_fallbacks(), 0u);
}

TEST_F(RedisLockClientIntegrationTest, ContentionBetweenTwoClients) {
  auto a = NewClient(1), b = NewClient(2);
  AcquireResult ra, rb, rb2;
  ReleaseResult rel;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    ra = co_await a->Acquire("k", milliseconds(10000));
    rb = co_await b->Acquire("k", milliseconds(10000));
    rel = co_await a->Release("k", ra.token);
    rb2 = co_await b->Acquire("k", milliseconds(10000));
  });
  EXPECT_EQ(ra.outcome, Outcome::kOk) << ra.error;
  EXPECT_EQ(rb.outcome, Outcome::kFail);
  EXPECT_EQ(rel.outcome, Outcome::kOk) << rel.error;
  EXPECT_EQ(rb2.outcome, Outcome::kOk) << rb2.error;
  EXPECT_NE(ra.token, rb2.token);
}

TEST_F(RedisLockClientIntegrationTest, ExpiredLockGoesToTheNextClientAndTheOldReleaseFails) {
  auto a = NewClient(1), b = NewClient(2);
  AcquireResult ra, rb;
  ReleaseResult rel_a;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    ra = co_await a->Acquire("k", milliseconds(100));
    co_await Sleep(milliseconds(300));
    rb = co_await b->Acquire("k", milliseconds(10000));
    rel_a = co_await a->Release("k", ra.token);
  });
  EXPECT_EQ(ra.outcome, Outcome::kOk) << ra.error;
  EXPECT_LE(ra.validity_ms, 100);
  EXPECT_EQ(rb.outcome, Outcome::kOk) << rb.error;
  EXPECT_EQ(rel_a.outcome, Outcome::kFail);  // compare-and-delete spared b's lock
  EXPECT_EQ(server_.Admin({"GET", "k"}), std::optional<std::string>(rb.token));
}

TEST_F(RedisLockClientIntegrationTest, ReleaseByANonHolderFails) {
  auto a = NewClient(1), b = NewClient(2);
  AcquireResult ra, rb;
  ReleaseResult rel_b;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    ra = co_await a->Acquire("k", milliseconds(10000));
    rb = co_await b->Acquire("k", milliseconds(10000));
    rel_b = co_await b->Release("k", "0123456789abcdef0123456789abcdef");
  });
  EXPECT_EQ(ra.outcome, Outcome::kOk);
  EXPECT_EQ(rb.outcome, Outcome::kFail);
  EXPECT_EQ(rel_b.outcome, Outcome::kFail);
  EXPECT_EQ(server_.Admin({"GET", "k"}), std::optional<std::string>(ra.token));
}

TEST_F(RedisLockClientIntegrationTest, TimeoutWhileTheServerIsPausedIsUnknown) {
  auto a = NewClient(1, milliseconds(300));
  ASSERT_TRUE(ConnectNow(*a).ok());
  AcquireResult paused, after;
  {
    ResumeGuard guard(server_);
    server_.Pause();
    testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
      paused = co_await a->Acquire("k", milliseconds(10000));
    });
  }
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    after = co_await a->Acquire("other", milliseconds(10000));
  });
  EXPECT_EQ(paused.outcome, Outcome::kUnknown) << paused.error;
  EXPECT_EQ(paused.token.size(), 32u);
  EXPECT_EQ(after.outcome, Outcome::kOk) << after.error;  // on a fresh connection
  EXPECT_EQ(a->connects(), 2u);
  // "Unknown" is honest: the SET sat in the kernel buffer and may well have
  // run when the server resumed.
  auto value = server_.Admin({"GET", "k"});
  ASSERT_TRUE(value.has_value());
  EXPECT_TRUE(*value == "(nil)" || *value == paused.token) << *value;
}

TEST_F(RedisLockClientIntegrationTest,
       ConnectionLostMidCallIsUnknownThenReconnectsAndNoscriptFallsBack) {
  auto a = NewClient(1, milliseconds(5000));
  ASSERT_TRUE(ConnectNow(*a).ok());
  AcquireResult lost, after;
  ReleaseResult rel;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    server_.Pause();  // the SET is written but cannot be answered...
    auto ex = co_await asio::this_coro::executor;
    bool done = false;
    asio::co_spawn(
        ex,
        [&]() -> asio::awaitable<void> { lost = co_await a->Acquire("k", milliseconds(10000)); },
        [&](std::exception_ptr) { done = true; });
    co_await Sleep(milliseconds(100));
    server_.Kill();  // ...and then the server dies: the connection is reset
    while (!done) co_await Sleep(milliseconds(10));
  });
  EXPECT_EQ(lost.outcome, Outcome::kUnknown) << lost.error;

  // A restarted Redis without persistence: empty, and its script cache gone.
  Status restarted = server_.Start();
  ASSERT_TRUE(restarted.ok()) << restarted.error();
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    after = co_await a->Acquire("k", milliseconds(10000));
    rel = co_await a->Release("k", after.token);
  });
  EXPECT_EQ(after.outcome, Outcome::kOk) << after.error;
  EXPECT_EQ(rel.outcome, Outcome::kOk) << rel.error;
  EXPECT_EQ(a->noscript_fallbacks(), 1u);
  EXPECT_EQ(a->connects(), 2u);
}

TEST_F(RedisLockClientIntegrationTest, ReleaseStillWorksAfterScriptFlush) {
  auto a = NewClient(1);
  ASSERT_TRUE(ConnectNow(*a).ok());
  AcquireResult ra;
  ReleaseResult rel;
  testing::RunCoroutine(ioc_,
        [&]() -> asio::awaitable<void> { ra = co_await a->Acquire("k", milliseconds(10000)); });
  ASSERT_EQ(server_.Admin({"SCRIPT", "FLUSH"}), std::optional<std::string>("OK"));
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> { rel = co_await a->Release("k", ra.token); });
  EXPECT_EQ(ra.outcome, Outcome::kOk);
  EXPECT_EQ(rel.outcome, Outcome::kOk) << rel.error;
  EXPECT_EQ(a->noscript_fallbacks(), 1u);
  EXPECT_EQ(server_.Admin({"EXISTS", "k"}), std::optional<std::string>("0"));
}

TEST_F(RedisLockClientIntegrationTest, ScriptShaMatchesTheCompiledInConstant) {
  EXPECT_EQ(server_.Admin({"SCRIPT", "LOAD", std::string(RedisLockClient::kReleaseScript)}),
            std::optional<std::string>(std::string(RedisLockClient::kReleaseScriptSha1)));
}

TEST_F(RedisLockClientIntegrationTest, WrongPasswordFailsConnectAndCallsDefinitely) {
  RedisLockClientOptions o = Options();
  o.endpoint.password = "wrong";
  RedisLockClient c(ioc_.get_executor(), o, 1);
  std::optional<Status> s;
  AcquireResult r;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    s = co_await c.Connect();
    r = co_await c.Acquire("k", milliseconds(10000));
  });
  ASSERT_TRUE(s.has_value());
  EXPECT_FALSE(s->ok());
  EXPECT_NE(s->error().find("AUTH"), std::string::npos) << s->error();
  EXPECT_EQ(r.outcome, Outcome::kFail) << r.error;
  EXPECT_EQ(server_.Admin({"EXISTS", "k"}), std::optional<std::string>("0"));
}

TEST_F(RedisLockClientIntegrationTest, ServerDownIsADefiniteFail) {
  auto a = NewClient(1);
  server_.Kill();
  AcquireResult r;
  testing::RunCoroutine(ioc_,
        [&]() -> asio::awaitable<void> { r = co_await a->Acquire("k", milliseconds(10000)); });
  EXPECT_EQ(r.outcome, Outcome::kFail) << r.error;
  EXPECT_NE(r.error.find("not sent"), std::string::npos) << r.error;
}

// The owner-checked extend the watchdog renews with: PEXPIRE only while
// the value is the caller's token.
TEST_F(RedisLockClientIntegrationTest, ExtendIsOwnerChecked) {
  auto a = NewClient(1);
  AcquireResult ra;
  ExtendResult mine, other, gone;
  std::optional<std::string> ttl_after, ttl_other;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    ra = co_await a->Acquire("k", milliseconds(1000));
    mine = co_await a->Extend("k", ra.token, milliseconds(60000));
    ttl_after = server_.Admin({"PTTL", "k"});
    other = co_await a->Extend("k", "not-the-token", milliseconds(120000));
    ttl_other = server_.Admin({"PTTL", "k"});
    (void)server_.Admin({"DEL", "k"});
    gone = co_await a->Extend("k", ra.token, milliseconds(60000));
  });
  ASSERT_EQ(ra.outcome, Outcome::kOk) << ra.error;
  EXPECT_EQ(mine.outcome, Outcome::kOk) << mine.error;
  EXPECT_GT(mine.validity_ms, 59000);
  ASSERT_TRUE(ttl_after && ttl_other);
  EXPECT_GT(std::stol(*ttl_after), 1000);
  EXPECT_LE(std::stol(*ttl_other), 60000);  // another token changed nothing
  EXPECT_EQ(other.outcome, Outcome::kFail);
  EXPECT_TRUE(other.not_held);
  EXPECT_EQ(gone.outcome, Outcome::kFail);
  EXPECT_TRUE(gone.not_held);
  EXPECT_EQ(server_.Admin({"EXISTS", "k"}), std::optional<std::string>("0"));
}

// Redisson's lock and unlock scripts on the real server: a hash of owner ->
// hold count, re-entry increments and refreshes the TTL, another owner gets
// the PTTL, unlock decrements, deletes at zero and publishes on the channel.
TEST_F(RedisLockClientIntegrationTest, ReentrantScriptsKeepAHoldCountPerOwner) {
  RedisLockClientOptions o = Options();
  RedisReentrantLockClient a(ioc_.get_executor(), o, 1), b(ioc_.get_executor(), o, 2);
  std::vector<std::string> published;
  RedisConnectionOptions sub_options{o.endpoint, milliseconds(1000)};
  sub_options.on_message = [&](const RedisReply& m) {
    if (m.elements.size() == 3) published.push_back(m.elements[1].str + "=" + m.elements[2].str);
  };
  RedisConnection sub(ioc_.get_executor(), sub_options);
  AcquireResult first, again, other;
  ReleaseResult nested, outer, twice;
  std::optional<std::string> count1, count2, ttl2, count3;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    const std::string channel = RedisReentrantLockClient::ChannelOf("k");
    const std::array<std::string_view, 2> subscribe{"SUBSCRIBE", channel};
    (void)co_await sub.Command(subscribe, RedisConnection::Clock::now() + milliseconds(1000));
    EXPECT_TRUE((co_await a.Connect()).ok());
    first = co_await a.Acquire("k", milliseconds(2000));
    count1 = server_.Admin({"HGET", "k", first.token});
    again = co_await a.Acquire("k", milliseconds(50000));
    count2 = server_.Admin({"HGET", "k", first.token});
    ttl2 = server_.Admin({"PTTL", "k"});
    other = co_await b.Acquire("k", milliseconds(2000));
    nested = co_await a.Release("k", again.token);
    count3 = server_.Admin({"HGET", "k", first.token});
    outer = co_await a.Release("k", first.token);
    twice = co_await a.Release("k", first.token);
    co_await Sleep(milliseconds(100));  // the published message arrives
    sub.Close();
  });
  ASSERT_EQ(first.outcome, Outcome::kOk) << first.error;
  EXPECT_EQ(count1, std::optional<std::string>("1"));
  EXPECT_EQ(again.outcome, Outcome::kOk) << again.error;
  EXPECT_EQ(again.token, first.token);  // the same owner re-enters
  EXPECT_EQ(count2, std::optional<std::string>("2"));
  ASSERT_TRUE(ttl2.has_value());
  EXPECT_GT(std::stol(*ttl2), 2000);  // refreshed by the re-entry
  EXPECT_EQ(other.outcome, Outcome::kFail);
  ASSERT_TRUE(other.detail.contains("pttl_ms")) << other.detail.dump();
  EXPECT_GT(other.detail["pttl_ms"].get<int64_t>(), 2000);
  EXPECT_EQ(nested.outcome, Outcome::kOk) << nested.error;
  EXPECT_EQ(count3, std::optional<std::string>("1"));
  EXPECT_EQ(outer.outcome, Outcome::kOk) << outer.error;
  EXPECT_EQ(server_.Admin({"EXISTS", "k"}), std::optional<std::string>("0"));
  EXPECT_EQ(twice.outcome, Outcome::kFail);
  EXPECT_EQ(published, std::vector<std::string>{"redisson_lock__channel:{k}=0"});
  EXPECT_EQ(a.holds("k"), 0);
}

TEST_F(RedisLockClientIntegrationTest, AnOuterReleaseTheServerCountsMoreHoldsForFails) {
  RedisReentrantLockClient a(ioc_.get_executor(), Options(), 1);
  AcquireResult first;
  ReleaseResult outer;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    first = co_await a.Acquire("k", milliseconds(5000));
    // A re-entry whose reply was lost took effect: one hold more than the
    // client counts.
    (void)server_.Admin({"HINCRBY", "k", first.token, "1"});
    outer = co_await a.Release("k", first.token);
  });
  ASSERT_EQ(first.outcome, Outcome::kOk) << first.error;
  EXPECT_EQ(outer.outcome, Outcome::kFail);
  EXPECT_NE(outer.error.find("still held"), std::string::npos) << outer.error;
  EXPECT_EQ(server_.Admin({"HGET", "k", first.token}), std::optional<std::string>("1"));
}

// The watchdog on the real server: it keeps a short lease alive past its
// length, stops at release, reports a key deleted behind its back as lost,
// and a pause longer than the lease lets the lock expire.
class WatchdogIntegrationTest : public RedisLockClientIntegrationTest {
 protected:
  std::unique_ptr<WatchdogLockClient> NewWatchdog(uint64_t seed) {
    auto w = std::make_unique<WatchdogLockClient>(ioc_.get_executor(), NewClient(seed));
    w->SetEventSink([this](LockEvent e) { events_.push_back(std::move(e)); });
    return w;
  }
  int Count(LockEvent::Kind kind, Outcome outcome) const {
    int n = 0;
    for (const auto& e : events_) n += e.kind == kind && e.outcome == outcome;
    return n;
  }
  std::vector<LockEvent> events_;
};

TEST_F(WatchdogIntegrationTest, RenewsPastTheLeaseAndStopsAtRelease) {
  auto w = NewWatchdog(1);
  AcquireResult r;
  ReleaseResult rel;
  std::optional<std::string> held_at_900;
  size_t events_at_release = 0;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    r = co_await w->Acquire("k", milliseconds(300));
    co_await Sleep(milliseconds(900));
    held_at_900 = server_.Admin({"GET", "k"});
    rel = co_await w->Release("k", r.token);
    events_at_release = events_.size();
    co_await Sleep(milliseconds(400));
    w->Close();
  });
  ASSERT_EQ(r.outcome, Outcome::kOk) << r.error;
  EXPECT_EQ(held_at_900, std::optional<std::string>(r.token));
  EXPECT_GE(Count(LockEvent::Kind::kRenewed, Outcome::kOk), 4);
  EXPECT_EQ(Count(LockEvent::Kind::kLost, Outcome::kOk), 0);
  for (const auto& e : events_) {
    EXPECT_EQ(e.token, r.token);
    EXPECT_GT(e.validity_ms, 200);
  }
  EXPECT_EQ(rel.outcome, Outcome::kOk) << rel.error;
  EXPECT_EQ(events_.size(), events_at_release);
  EXPECT_EQ(w->watched(), 0u);
}

TEST_F(WatchdogIntegrationTest, AKeyGoneBehindItsBackIsReportedLost) {
  auto w = NewWatchdog(1);
  AcquireResult r;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    r = co_await w->Acquire("k", milliseconds(300));
    (void)server_.Admin({"SET", "k", "someone-else"});
    co_await Sleep(milliseconds(400));
    w->Close();
  });
  ASSERT_EQ(r.outcome, Outcome::kOk) << r.error;
  ASSERT_EQ(events_.size(), 2u);
  EXPECT_EQ(events_[0].kind, LockEvent::Kind::kRenewed);
  EXPECT_EQ(events_[0].outcome, Outcome::kFail);
  EXPECT_EQ(events_[1].kind, LockEvent::Kind::kLost);
  EXPECT_EQ(server_.Admin({"GET", "k"}), std::optional<std::string>("someone-else"));
  EXPECT_EQ(w->watched(), 0u);
}

TEST_F(WatchdogIntegrationTest, APauseLongerThanTheLeaseLetsTheLockExpire) {
  auto w = NewWatchdog(1);
  AcquireResult r;
  std::optional<std::string> exists_in_pause;
  size_t events_in_pause = 0;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    r = co_await w->Acquire("k", milliseconds(300));
    w->SetPaused(true);
    co_await Sleep(milliseconds(600));
    exists_in_pause = server_.Admin({"EXISTS", "k"});
    events_in_pause = events_.size();
    w->SetPaused(false);
    co_await Sleep(milliseconds(200));
    w->Close();
  });
  ASSERT_EQ(r.outcome, Outcome::kOk) << r.error;
  EXPECT_EQ(exists_in_pause, std::optional<std::string>("0"));
  EXPECT_EQ(events_in_pause, 0u);  // nothing renews in a pause
  ASSERT_FALSE(events_.empty());
  EXPECT_EQ(events_.back().kind, LockEvent::Kind::kLost);
}

TEST_F(WatchdogIntegrationTest, APauseShorterThanTheLeaseKeepsTheLock) {
  auto w = NewWatchdog(1);
  AcquireResult r;
  std::optional<std::string> held;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    r = co_await w->Acquire("k", milliseconds(900));
    w->SetPaused(true);
    co_await Sleep(milliseconds(400));
    w->SetPaused(false);
    co_await Sleep(milliseconds(900));
    held = server_.Admin({"GET", "k"});
    w->Close();
  });
  ASSERT_EQ(r.outcome, Outcome::kOk) << r.error;
  EXPECT_EQ(held, std::optional<std::string>(r.token));
  EXPECT_EQ(Count(LockEvent::Kind::kLost, Outcome::kOk), 0);
  EXPECT_GE(Count(LockEvent::Kind::kRenewed, Outcome::kOk), 2);
}

}  // namespace
}  // namespace locksmith
