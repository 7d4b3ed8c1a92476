// Unit tests for master discovery: SentinelMasterFinder and
// SentinelLockClient against FakeRedisServers playing two masters and a
// sentinel that names one master, then changes its answer (told by a
// READONLY reply, or by a +switch-master message pushed on the subscribed
// connection), and the pub/sub extension of RedisConnection.
#include "backends/sentinel_lock_client.h"

#include <chrono>
#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "backends/redis_lock_client.h"
#include "backends/task_group.h"
#include "backends/testing/fake_redis_server.h"
#include "backends/testing/run_coroutine.h"

namespace locksmith {
namespace {

namespace asio = boost::asio;
using std::chrono::milliseconds;
using testing::FakeRedisServer;
using testing::RunCoroutine;

std::string Bulk(const std::string& s) {
  return "$" + std::to_string(s.size()) + "\r\n" + s + "\r\n";
}

std::string Array(const std::vector<std::string>& items) {
  std::string out = "*" + std::to_string(items.size()) + "\r\n";
  for (const auto& i : items) out += Bulk(i);
  return out;
}

// A master that grants every SET (and SETNX), or refuses with READONLY once demoted.
struct FakeMaster {
  explicit FakeMaster(asio::io_context& io)
      : server(io.get_executor(), [this](const FakeRedisServer::Command& c) {
          const std::string& name = c.at(0);
          if (name == "AUTH") return FakeRedisServer::Action{"+OK\r\n"};
          if (name == "PING") return FakeRedisServer::Action{"+PONG\r\n"};
          if (name == "SCRIPT") {
            return FakeRedisServer::Action{
                Bulk(std::string(RedisLockClient::kReleaseScriptSha1))};
          }
          if (name == "SET" || name == "SETNX") {
            ++sets;
            if (demoted) {
              return FakeRedisServer::Action{
                  "-READONLY You can't write against a read only replica.\r\n"};
            }
            return FakeRedisServer::Action{name == "SET" ? "+OK\r\n" : ":1\r\n"};
          }
          return FakeRedisServer::Action{":1\r\n"};
        }) {}
  FakeRedisServer server;
  bool demoted = false;
  int sets = 0;
};

// A sentinel that names `master_port` as the master; when `push` is set,
// its next reply to PING on a subscribed connection is preceded by a
// +switch-master message.
struct FakeSentinel {
  explicit FakeSentinel(asio::io_context& io)
      : server(io.get_executor(), [this](const FakeRedisServer::Command& c) {
          const std::string& name = c.at(0);
          if (name == "AUTH") return FakeRedisServer::Action{"+OK\r\n"};
          if (name == "SENTINEL") {
            ++asked;
            return FakeRedisServer::Action{Array({"127.0.0.1", std::to_string(master_port)})};
          }
          if (name == "SUBSCRIBE") {
            return FakeRedisServer::Action{"*3\r\n" + Bulk("subscribe") + Bulk(c.at(1)) +
                                           ":1\r\n"};
          }
          if (name == "PING") {
            std::string out;
            if (push) {
              push = false;
              out = Array({"message", "+switch-master",
                           "other 127.0.0.1 1 127.0.0.1 2"}) +  // another master: ignored
                    Array({"message", "+switch-master",
                           "ls 127.0.0.1 " + std::to_string(old_port) + " 127.0.0.1 " +
                               std::to_string(master_port)});
            }
            return FakeRedisServer::Action{out + Array({"pong", ""})};
          }
          return FakeRedisServer::Action{"-ERR unknown\r\n"};
        }) {}
  FakeRedisServer server;
  int master_port = 0;
  int old_port = 0;
  bool push = false;
  int asked = 0;
};

SentinelLockClientOptions Options(const FakeSentinel& sentinel, bool watch) {
  SentinelLockClientOptions o;
  o.sentinels = {{"127.0.0.1", sentinel.server.port(), "pw"}};
  o.master_name = "ls";
  o.password = "pw";
  o.timeout = milliseconds(1000);
  o.watch = watch;
  o.make_client = [](asio::any_io_executor ex, const RedisEndpoint& master, uint64_t seed) {
    RedisLockClientOptions r;
    r.endpoint = master;
    return std::unique_ptr<LockClient>(new RedisLockClient(ex, r, seed));
  };
  return o;
}

TEST(ParseSwitchMasterTest, TakesTheNewAddressOfOurMasterOnly) {
  auto sw = ParseSwitchMaster("ls 10.0.0.1 6379 198.18.0.3 6380", "ls");
  ASSERT_TRUE(sw.has_value());
  EXPECT_EQ(sw->first, "198.18.0.3");
  EXPECT_EQ(sw->second, 6380);
  EXPECT_FALSE(ParseSwitchMaster("other 1 2 3 4", "ls").has_value());
  EXPECT_FALSE(ParseSwitchMaster("ls 1 2 3", "ls").has_value());
  EXPECT_FALSE(ParseSwitchMaster("ls 1 2 3 70000", "ls").has_value());
}

TEST(SentinelMasterFinderTest, AsksTheNextSentinelWhenOneIsDown) {
  asio::io_context io;
  FakeSentinel sentinel(io);
  sentinel.master_port = 4242;
  SentinelMasterFinder finder(io.get_executor(),
                              {{{"127.0.0.1", 1, "pw"},
                                {"127.0.0.1", sentinel.server.port(), "pw"}},
                               "ls",
                               "master-pw"});
  RunCoroutine(io, [&]() -> asio::awaitable<void> {
    auto found = co_await finder.Ask(std::chrono::steady_clock::now() + milliseconds(2000));
    EXPECT_TRUE(found.ok()) << (found.ok() ? "" : found.error());
    if (found.ok()) {
      EXPECT_EQ(found->port, 4242);
      EXPECT_EQ(found->password, "master-pw");
    }
    finder.Close();
    sentinel.server.Stop();
  });
}

// The +switch-master subscription runs among the io_context's background
// tasks (so what it throws would fail the run), beside its connection's read
// loop, until Close.
TEST(SentinelMasterFinderTest, TheWatchIsABackgroundTaskUntilClosed) {
  asio::io_context io;
  FakeSentinel sentinel(io);
  sentinel.push = true;
  SentinelMasterFinderOptions o{{{"127.0.0.1", sentinel.server.port(), "pw"}}, "ls", "pw"};
  o.watch_ping = milliseconds(5);
  SentinelMasterFinder finder(io.get_executor(), o);
  const TaskGroup& background = BackgroundTasks(io.get_executor());
  size_t while_watching = 0;
  RunCoroutine(io, [&]() -> asio::awaitable<void> {
    finder.Watch();
    asio::steady_timer t(io);
    for (int i = 0; i < 400 && finder.switches() == 0; ++i) {
      t.expires_after(milliseconds(5));
      co_await t.async_wait(asio::use_awaitable);
    }
    while_watching = background.running();
    finder.Close();
    for (int i = 0; i < 400 && background.running() > 0; ++i) {
      t.expires_after(milliseconds(5));
      co_await t.async_wait(asio::use_awaitable);
    }
    sentinel.server.Stop();
  });
  EXPECT_EQ(finder.switches(), 1u);
  EXPECT_EQ(while_watching, 2u);  // the watch loop and its connection's read loop
  EXPECT_EQ(background.running(), 0u);
  EXPECT_FALSE(background.failed());
}

TEST(SentinelLockClientTest, FollowsTheSentinelsAnswerAfterReadonly) {
  asio::io_context io;
  FakeMaster a(io), b(io);
  FakeSentinel sentinel(io);
  sentinel.master_port = a.server.port();
  SentinelLockClient client(io.get_executor(), Options(sentinel, false), 7);
  RunCoroutine(io, [&]() -> asio::awaitable<void> {
    Status connected = co_await client.Connect();
    EXPECT_TRUE(connected.ok()) << (connected.ok() ? "" : connected.error());
    AcquireResult r1 = co_await client.Acquire("k", milliseconds(1000));
    EXPECT_EQ(r1.outcome, Outcome::kOk);
    EXPECT_EQ(a.sets, 1);
    // Failover: a is demoted, the sentinel now names b.
    a.demoted = true;
    sentinel.master_port = b.server.port();
    AcquireResult r2 = co_await client.Acquire("k", milliseconds(1000));
    EXPECT_EQ(r2.outcome, Outcome::kFail);  // READONLY: definite
    AcquireResult r3 = co_await client.Acquire("k", milliseconds(1000));
    EXPECT_EQ(r3.outcome, Outcome::kOk);
    EXPECT_EQ(b.sets, 1);
    EXPECT_NE(r1.token, r3.token);
    EXPECT_EQ(client.masters_followed(), 2u);
    EXPECT_EQ(client.master(), "127.0.0.1:" + std::to_string(b.server.port()));
    client.Close();
    a.server.Stop();
    b.server.Stop();
    sentinel.server.Stop();
  });
}

TEST(SentinelLockClientTest, ItsInnerClientsCrashAtTheirCrashPointAcrossAFailover) {
  asio::io_context io;
  FakeMaster a(io), b(io);
  FakeSentinel sentinel(io);
  sentinel.master_port = a.server.port();
  SentinelLockClientOptions o = Options(sentinel, false);
  o.make_client = [](asio::any_io_executor ex, const RedisEndpoint& master, uint64_t seed) {
    RedisLockClientOptions r;
    r.endpoint = master;
    r.recipe = RedisLockRecipe::kSetnxExpire;
    return std::unique_ptr<LockClient>(new RedisLockClient(ex, r, seed));
  };
  SentinelLockClient client(io.get_executor(), o, 7);
  int asked = 0;
  client.SetFaultPointHook([&asked](ClientFaultPoint point, const std::string& key)
                               -> asio::awaitable<ClientFaultEffect> {
    ++asked;
    EXPECT_EQ(point, ClientFaultPoint::kAcquireAnswered) << "only the crash point is passed on";
    co_return ClientFaultEffect{key == "dies", milliseconds(0)};
  });
  // No master looked up yet: no inner client whose point it could be.
  EXPECT_TRUE(client.OwnFaultPoints().empty());
  RunCoroutine(io, [&]() -> asio::awaitable<void> {
    EXPECT_TRUE((co_await client.Connect()).ok());
    EXPECT_EQ(client.OwnFaultPoints(), ClientFaultPoints{ClientFaultPoint::kAcquireAnswered});
    EXPECT_EQ((co_await client.Acquire("lives", milliseconds(1000))).outcome, Outcome::kOk);
    a.demoted = true;  // READONLY for the next SET: the client asks again
    sentinel.master_port = b.server.port();
    (void)co_await client.Acquire("lives", milliseconds(1000));
    (void)co_await client.Acquire("lives", milliseconds(1000));
    EXPECT_EQ(client.masters_followed(), 2u);
    AcquireResult died = co_await client.Acquire("dies", milliseconds(1000));
    EXPECT_TRUE(died.crashed);
    EXPECT_EQ(died.outcome, Outcome::kUnknown);
    client.Close();
    a.server.Stop();
    b.server.Stop();
    sentinel.server.Stop();
  });
  EXPECT_GE(asked, 2);
}

TEST(SentinelLockClientTest, FollowsASwitchMasterMessage) {
  asio::io_context io;
  FakeMaster a(io), b(io);
  FakeSentinel sentinel(io);
  sentinel.master_port = a.server.port();
  SentinelLockClientOptions o = Options(sentinel, true);
  SentinelLockClient client(io.get_executor(), o, 7);
  RunCoroutine(io, [&]() -> asio::awaitable<void> {
    Status connected = co_await client.Connect();
    EXPECT_TRUE(connected.ok());
    EXPECT_EQ((co_await client.Acquire("k", milliseconds(1000))).outcome, Outcome::kOk);
    // The sentinel changes its answer and announces it; a is never told.
    sentinel.old_port = a.server.port();
    sentinel.master_port = b.server.port();
    sentinel.push = true;
    asio::steady_timer timer(io);
    for (int i = 0; i < 100 && sentinel.push; ++i) {  // until the PING carried it
      timer.expires_after(milliseconds(20));
      co_await timer.async_wait(asio::use_awaitable);
    }
    timer.expires_after(milliseconds(50));
    co_await timer.async_wait(asio::use_awaitable);
    EXPECT_EQ((co_await client.Acquire("k", milliseconds(1000))).outcome, Outcome::kOk);
    EXPECT_EQ(a.sets, 1);
    EXPECT_EQ(b.sets, 1);
    client.Close();
    a.server.Stop();
    b.server.Stop();
    sentinel.server.Stop();
  });
}

}  // namespace
}  // namespace locksmith
