// Unit tests for RedisLockClient: the reply -> outcome mapping as pure
// functions, the token generator, and the wire commands against
// FakeRedisServer (SET NX PX, EVALSHA, the NOSCRIPT -> EVAL fallback).
#include "backends/redis_lock_client.h"

#include <cctype>
#include <chrono>
#include <exception>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include <gtest/gtest.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "backends/task_group.h"
#include "backends/testing/fake_redis_server.h"
#include "backends/testing/run_coroutine.h"
#include "backends/watchdog_lock_client.h"

namespace locksmith {
namespace {

using testing::FakeRedisServer;

namespace asio = boost::asio;
using std::chrono::milliseconds;

RedisResponse ReplyOf(RedisReply::Type type, std::string str = "", int64_t integer = 0) {
  RedisResponse r;
  r.reply.type = type;
  r.reply.str = std::move(str);
  r.reply.integer = integer;
  return r;
}

RedisResponse Transport(RedisCallError error) {
  RedisResponse r;
  r.error = error;
  r.message = "boom";
  return r;
}

TEST(RedisOutcomeTest, AcquireReplies) {
  std::string why;
  EXPECT_EQ(AcquireOutcome(ReplyOf(RedisReply::Type::kStatus, "OK"), &why), Outcome::kOk);
  EXPECT_EQ(AcquireOutcome(ReplyOf(RedisReply::Type::kNil), &why), Outcome::kFail);
  EXPECT_EQ(AcquireOutcome(ReplyOf(RedisReply::Type::kInteger, "", 1), &why), Outcome::kUnknown);
  EXPECT_EQ(AcquireOutcome(ReplyOf(RedisReply::Type::kStatus, "QUEUED"), &why), Outcome::kUnknown);
}

TEST(RedisOutcomeTest, ReleaseReplies) {
  std::string why;
  EXPECT_EQ(ReleaseOutcome(ReplyOf(RedisReply::Type::kInteger, "", 1), &why), Outcome::kOk);
  EXPECT_EQ(ReleaseOutcome(ReplyOf(RedisReply::Type::kInteger, "", 0), &why), Outcome::kFail);
  EXPECT_EQ(ReleaseOutcome(ReplyOf(RedisReply::Type::kInteger, "", 2), &why), Outcome::kUnknown);
  EXPECT_EQ(ReleaseOutcome(ReplyOf(RedisReply::Type::kNil), &why), Outcome::kUnknown);
}

TEST(RedisOutcomeTest, TransportErrorsAreFailOnlyWhenNothingWasSent) {
  std::string why;
  for (auto* f : {&AcquireOutcome, &ReleaseOutcome}) {
    EXPECT_EQ(f(Transport(RedisCallError::kNotSent), &why), Outcome::kFail);
    EXPECT_EQ(f(Transport(RedisCallError::kInDoubt), &why), Outcome::kUnknown);
    EXPECT_EQ(f(Transport(RedisCallError::kClosed), &why), Outcome::kUnknown);
  }
}

TEST(RedisOutcomeTest, OnlyRejectionsBeforeExecutionAreDefinite) {
  std::string why;
  for (const char* definite :
       {"NOAUTH Authentication required.", "LOADING Redis is loading the dataset in memory",
        "BUSY Redis is busy running a script.",
        "READONLY You can't write against a read only replica.",
        "MASTERDOWN Link with MASTER is down", "OOM command not allowed",
        "MISCONF Redis is configured to save RDB snapshots", "NOREPLICAS Not enough good replicas",
        "WRONGTYPE Operation against a key holding the wrong kind of value", "NOPERM no"}) {
    EXPECT_EQ(AcquireOutcome(ReplyOf(RedisReply::Type::kError, definite), &why), Outcome::kFail)
        << definite;
    EXPECT_EQ(ReleaseOutcome(ReplyOf(RedisReply::Type::kError, definite), &why), Outcome::kFail)
        << definite;
    EXPECT_EQ(why, definite);
  }
  for (const char* in_doubt :
       {"ERR Error running script", "ERR something new", "BUSYKEY x", "SOMENEWCODE what", ""}) {
    EXPECT_EQ(AcquireOutcome(ReplyOf(RedisReply::Type::kError, in_doubt), &why), Outcome::kUnknown)
        << in_doubt;
    EXPECT_EQ(ReleaseOutcome(ReplyOf(RedisReply::Type::kError, in_doubt), &why), Outcome::kUnknown)
        << in_doubt;
  }
}

TEST(LockTokenGeneratorTest, IsThirtyTwoHexCharsAndReplaysFromTheSeed) {
  LockTokenGenerator a(7), b(7), c(8);
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    std::string ta = a.Next();
    ASSERT_EQ(ta.size(), 32u);
    for (char ch : ta)
      ASSERT_TRUE(std::isxdigit(static_cast<unsigned char>(ch)) && !std::isupper(ch));
    EXPECT_EQ(ta, b.Next());
    EXPECT_NE(ta, c.Next());
    seen.insert(ta);
  }
  EXPECT_EQ(seen.size(), 1000u);
}

TEST(LockTokenGeneratorTest, FormatsBigEndianHex) {
  char out[33] = {};
  LockTokenGenerator::FormatHex(0x0123456789abcdefULL, 0xfedcba9876543210ULL, out);
  EXPECT_STREQ(out, "0123456789abcdeffedcba9876543210");
}

TEST(LockTokenGeneratorTest, TokensAreStableAcrossBuilds) {
  // mt19937_64's output is fixed by the standard: this pins replays.
  EXPECT_EQ(LockTokenGenerator(42).Next(), "23c18b60556ba7f9f82564b8ecf0f325");
  EXPECT_NE(LockTokenGenerator(43).Next(), "23c18b60556ba7f9f82564b8ecf0f325");
}

// The wire protocol, end to end against canned replies.
class RedisLockClientFakeTest : public ::testing::Test {
 protected:
  RedisLockClientOptions Options(uint16_t port) {
    RedisLockClientOptions o;
    o.endpoint = {"127.0.0.1", port, "pw"};
    return o;
  }
  asio::io_context ioc_;
};

TEST_F(RedisLockClientFakeTest, AcquireSendsSetNxPxWithAFreshTokenAndMapsReplies) {
  int sets = 0;
  FakeRedisServer server(ioc_.get_executor(), [&](const FakeRedisServer::Command& c) {
    if (c[0] == "SET") return FakeRedisServer::Action{++sets == 1 ? "+OK\r\n" : "$-1\r\n"};
    return FakeRedisServer::Action{"+OK\r\n"};
  });
  RedisLockClient client(ioc_.get_executor(), Options(server.port()), 99);
  AcquireResult first, second;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    first = co_await client.Acquire("lock-1", milliseconds(30000));
    second = co_await client.Acquire("lock-1", milliseconds(30000));
    server.Stop();
  });
  EXPECT_EQ(first.outcome, Outcome::kOk);
  EXPECT_EQ(first.token.size(), 32u);
  EXPECT_GT(first.validity_ms, 0);
  EXPECT_LE(first.validity_ms, 30000);
  EXPECT_EQ(second.outcome, Outcome::kFail);
  EXPECT_TRUE(second.token.empty());
  ASSERT_EQ(server.commands().size(), 3u);  // AUTH, SET, SET
  const auto& set = server.commands()[1];
  EXPECT_EQ(set, (FakeRedisServer::Command{"SET", "lock-1", first.token, "NX", "PX", "30000"}));
  EXPECT_NE(server.commands()[2][2], first.token);  // a new token per acquisition
  LockTokenGenerator replay(99);
  EXPECT_EQ(first.token, replay.Next());
}

TEST_F(RedisLockClientFakeTest, ClientsSharingAConnectionUseOneSocketAndCloseAlone) {
  FakeRedisServer server(ioc_.get_executor(), [&](const FakeRedisServer::Command&) {
    return FakeRedisServer::Action{"+OK\r\n"};
  });
  RedisLockClientOptions o = Options(server.port());
  o.shared_connection =
      std::make_shared<RedisConnection>(ioc_.get_executor(), RedisConnectionOptions{o.endpoint});
  RedisLockClient first(ioc_.get_executor(), o, 1);
  RedisLockClient second(ioc_.get_executor(), o, 2);
  AcquireResult a, b, after_close, still;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    a = co_await first.Acquire("lock-a", milliseconds(30000));
    b = co_await second.Acquire("lock-b", milliseconds(30000));
    first.Close();
    after_close = co_await first.Acquire("lock-a", milliseconds(30000));
    still = co_await second.Acquire("lock-c", milliseconds(30000));
    o.shared_connection->Close();
    server.Stop();
  });
  EXPECT_EQ(a.outcome, Outcome::kOk) << a.error;
  EXPECT_EQ(b.outcome, Outcome::kOk) << b.error;
  EXPECT_EQ(after_close.outcome, Outcome::kFail) << "nothing is sent after Close";
  EXPECT_EQ(still.outcome, Outcome::kOk) << "a client's Close leaves the shared connection open";
  EXPECT_EQ(server.connections(), 1);
  EXPECT_EQ(server.commands().size(), 4u);  // AUTH, then one SET from each acquire that ran
}

TEST_F(RedisLockClientFakeTest, ReleaseFallsBackToEvalOnNoscript) {
  FakeRedisServer server(ioc_.get_executor(), [&](const FakeRedisServer::Command& c) {
    if (c[0] == "EVALSHA") return FakeRedisServer::Action{"-NOSCRIPT No matching script.\r\n"};
    if (c[0] == "EVAL") return FakeRedisServer::Action{":1\r\n"};
    return FakeRedisServer::Action{"+OK\r\n"};
  });
  RedisLockClient client(ioc_.get_executor(), Options(server.port()), 1);
  ReleaseResult r;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    r = co_await client.Release("lock-1", "tok");
    server.Stop();
  });
  EXPECT_EQ(r.outcome, Outcome::kOk) << r.error;
  EXPECT_EQ(client.noscript_fallbacks(), 1u);
  ASSERT_EQ(server.commands().size(), 3u);
  EXPECT_EQ(server.commands()[1],
            (FakeRedisServer::Command{"EVALSHA", std::string(RedisLockClient::kReleaseScriptSha1),
                                      "1", "lock-1", "tok"}));
  EXPECT_EQ(server.commands()[2],
            (FakeRedisServer::Command{"EVAL", std::string(RedisLockClient::kReleaseScript), "1",
                                      "lock-1", "tok"}));
}

TEST_F(RedisLockClientFakeTest, ReleaseOfAnotherTokenFails) {
  FakeRedisServer server(ioc_.get_executor(), [&](const FakeRedisServer::Command& c) {
    return FakeRedisServer::Action{c[0] == "EVALSHA" ? ":0\r\n" : "+OK\r\n"};
  });
  RedisLockClient client(ioc_.get_executor(), Options(server.port()), 1);
  ReleaseResult r;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    r = co_await client.Release("lock-1", "not-mine");
    server.Stop();
  });
  EXPECT_EQ(r.outcome, Outcome::kFail);
}

// One key on a fake Redis: DEL removes whatever is there, the release
// script only the caller's value (debate row 10's two retries).
struct OneKeyRedis {
  std::string value;  // the lock's holder, empty: free
  FakeRedisServer::Action Answer(const FakeRedisServer::Command& c) {
    if (c[0] == "DEL") return {":" + std::string(std::exchange(value, "").empty() ? "0" : "1") + "\r\n"};
    if (c[0] == "EVALSHA") {
      if (value.empty() || value != c[4]) return {":0\r\n"};
      value.clear();
      return {":1\r\n"};
    }
    return {"+OK\r\n"};
  }
};

// The release-in-flight point: the first release stalls `stall` with its
// reply in flight, while the next client takes the lock (`then_held_by`).
ClientFaultPointHook StallFirstRelease(asio::io_context& ioc, milliseconds stall,
                                       OneKeyRedis& key, std::string then_held_by, int& stalls) {
  return [&ioc, stall, &key, then_held_by, &stalls](
             ClientFaultPoint point, const std::string&) -> asio::awaitable<ClientFaultEffect> {
    if (point != ClientFaultPoint::kReleaseInFlight || stalls++ > 0) co_return ClientFaultEffect{};
    asio::steady_timer timer(ioc, stall);
    co_await timer.async_wait(asio::use_awaitable);
    key.value = then_held_by;
    co_return ClientFaultEffect{};
  };
}

struct RetriedRelease {
  ReleaseResult result;
  std::string left;  // the key's value afterwards
  int releases = 0;  // release commands the server got
};

RetriedRelease ReleaseWithItsFirstReplyLost(asio::io_context& ioc, RedisLockRecipe recipe,
                                            int retries, milliseconds stall) {
  OneKeyRedis key{"mine"};
  FakeRedisServer server(ioc.get_executor(),
                         [&](const FakeRedisServer::Command& c) { return key.Answer(c); });
  RedisLockClientOptions o;
  o.endpoint = {"127.0.0.1", server.port(), "pw"};
  o.recipe = recipe;
  o.timeout = milliseconds(60);
  o.release_retries = retries;
  o.release_retry_delay = milliseconds(10);
  RedisLockClient client(ioc.get_executor(), o, 1);
  int stalls = 0;
  client.SetFaultPointHook(StallFirstRelease(ioc, stall, key, "next", stalls));
  RetriedRelease out;
  testing::RunCoroutine(ioc, [&]() -> asio::awaitable<void> {
    out.result = co_await client.Release("lock-1", "mine");
    server.Stop();
  });
  out.left = key.value;
  for (const auto& c : server.commands()) out.releases += c[0] == "DEL" || c[0] == "EVALSHA";
  return out;
}

TEST_F(RedisLockClientFakeTest, AReleaseStalledPastItsDeadlineWithTheReplyInFlightIsInDoubt) {
  RetriedRelease r =
      ReleaseWithItsFirstReplyLost(ioc_, RedisLockRecipe::kCorrect, 0, milliseconds(120));
  EXPECT_EQ(r.result.outcome, Outcome::kUnknown);
  EXPECT_NE(r.result.error.find("reply in flight"), std::string::npos) << r.result.error;
  EXPECT_EQ(r.result.attempts, 1);
  EXPECT_EQ(r.releases, 1);
  EXPECT_EQ(r.left, "next");
}

TEST_F(RedisLockClientFakeTest, AStallWithinTheDeadlineLosesNoReply) {
  RetriedRelease r =
      ReleaseWithItsFirstReplyLost(ioc_, RedisLockRecipe::kCorrect, 2, milliseconds(5));
  EXPECT_EQ(r.result.outcome, Outcome::kOk) << r.result.error;
  EXPECT_EQ(r.result.attempts, 1);
  EXPECT_EQ(r.releases, 1);
}

// The first DEL freed the lock, the next client took it, and the retry,
// by key alone, deletes that client's lock -- and calls it a success.
TEST_F(RedisLockClientFakeTest, ARetriedDelRemovesTheNextHoldersLock) {
  RetriedRelease r =
      ReleaseWithItsFirstReplyLost(ioc_, RedisLockRecipe::kDelUnlock, 2, milliseconds(120));
  EXPECT_EQ(r.result.outcome, Outcome::kOk) << r.result.error;
  EXPECT_EQ(r.result.attempts, 2);
  EXPECT_EQ(r.releases, 2);
  EXPECT_EQ(r.left, "") << "the next holder's lock survived";
}

// The compare-and-delete retry finds another's value and deletes nothing;
// the release stays in doubt (the first request may have freed the lock).
TEST_F(RedisLockClientFakeTest, ARetriedCompareAndDeleteLeavesTheNextHoldersLock) {
  RetriedRelease r =
      ReleaseWithItsFirstReplyLost(ioc_, RedisLockRecipe::kCorrect, 2, milliseconds(120));
  EXPECT_EQ(r.result.outcome, Outcome::kUnknown);
  EXPECT_NE(r.result.error.find("a request in doubt, then not held"), std::string::npos)
      << r.result.error;
  EXPECT_EQ(r.result.attempts, 2);
  EXPECT_EQ(r.releases, 2);
  EXPECT_EQ(r.left, "next");
}

TEST_F(RedisLockClientFakeTest, AcquireWaitsForReplicasAndReleasesWhenTooFewAcknowledge) {
  int acked = 2;
  FakeRedisServer server(ioc_.get_executor(), [&](const FakeRedisServer::Command& c) {
    if (c[0] == "WAIT") return FakeRedisServer::Action{":" + std::to_string(acked) + "\r\n"};
    if (c[0] == "EVALSHA") return FakeRedisServer::Action{":1\r\n"};
    return FakeRedisServer::Action{"+OK\r\n"};
  });
  RedisLockClientOptions o = Options(server.port());
  o.wait_replicas = 2;
  o.wait_timeout = milliseconds(50);
  RedisLockClient client(ioc_.get_executor(), o, 1);
  AcquireResult enough, short_acked;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    enough = co_await client.Acquire("lock-1", milliseconds(30000));
    acked = 1;
    short_acked = co_await client.Acquire("lock-1", milliseconds(30000));
    server.Stop();
  });
  EXPECT_EQ(enough.outcome, Outcome::kOk) << enough.error;
  EXPECT_EQ(short_acked.outcome, Outcome::kUnknown);
  EXPECT_NE(short_acked.error.find("1 of 2 replicas"), std::string::npos) << short_acked.error;
  // SET, WAIT / SET, WAIT, the release of the short-acked lock.
  const auto& cmds = server.commands();
  ASSERT_GE(cmds.size(), 5u);
  EXPECT_EQ(cmds[cmds.size() - 4], (FakeRedisServer::Command{"WAIT", "2", "50"}));
  EXPECT_EQ(cmds.back()[0], "EVALSHA");
  EXPECT_EQ(cmds.back()[4], short_acked.token);
}

TEST_F(RedisLockClientFakeTest, AcquireWithNoReplyIsUnknownAndKeepsTheToken) {
  FakeRedisServer server(ioc_.get_executor(), [&](const FakeRedisServer::Command& c) {
    return FakeRedisServer::Action{c[0] == "SET" ? "" : "+OK\r\n"};
  });
  RedisLockClientOptions o = Options(server.port());
  o.timeout = milliseconds(100);
  RedisLockClient client(ioc_.get_executor(), o, 1);
  AcquireResult r;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    r = co_await client.Acquire("lock-1", milliseconds(30000));
    server.Stop();
  });
  EXPECT_EQ(r.outcome, Outcome::kUnknown);
  EXPECT_EQ(r.token.size(), 32u);
  EXPECT_FALSE(r.error.empty());
}

TEST_F(RedisLockClientFakeTest, ConnectLoadsTheScript) {
  FakeRedisServer server(ioc_.get_executor(), [&](const FakeRedisServer::Command& c) {
    if (c[0] == "PING") return FakeRedisServer::Action{"+PONG\r\n"};
    if (c[0] == "SCRIPT") {
      return FakeRedisServer::Action{"$40\r\n" + std::string(RedisLockClient::kReleaseScriptSha1) +
                                     "\r\n"};
    }
    return FakeRedisServer::Action{"+OK\r\n"};
  });
  RedisLockClient client(ioc_.get_executor(), Options(server.port()), 1);
  std::optional<Status> s;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    s = co_await client.Connect();
    server.Stop();
  });
  ASSERT_TRUE(s.has_value());
  EXPECT_TRUE(s->ok()) << s->error();
  ASSERT_EQ(server.commands().size(), 4u);
  EXPECT_EQ(
      server.commands()[2],
      (FakeRedisServer::Command{"SCRIPT", "LOAD", std::string(RedisLockClient::kReleaseScript)}));
  EXPECT_EQ(
      server.commands()[3],
      (FakeRedisServer::Command{"SCRIPT", "LOAD", std::string(RedisLockClient::kExtendScript)}));
}

// The watchdog over a client of a fake server whose renewals answer as the
// test says: an answer that is no answer (an error reply, unknown) is
// reported and tried again a period later; 0 (not ours) is the loss, after
// which nothing more is sent.
TEST_F(RedisLockClientFakeTest, TheWatchdogRetriesUnansweredRenewalsAndReportsALoss) {
  int renewals = 0;
  FakeRedisServer server(ioc_.get_executor(), [&](const FakeRedisServer::Command& c) {
    if (c[0] == "SET") return FakeRedisServer::Action{"+OK\r\n"};
    if (c[0] == "EVAL" || c[0] == "EVALSHA") {
      ++renewals;
      if (renewals == 1) return FakeRedisServer::Action{":1\r\n"};
      if (renewals == 2) return FakeRedisServer::Action{"-ERR something odd\r\n"};
      return FakeRedisServer::Action{":0\r\n"};
    }
    return FakeRedisServer::Action{"+OK\r\n"};
  });
  WatchdogLockClient w(ioc_.get_executor(),
                       std::make_unique<RedisLockClient>(ioc_.get_executor(),
                                                         Options(server.port()), 1));
  std::vector<LockEvent> events;
  w.SetEventSink([&](LockEvent e) { events.push_back(std::move(e)); });
  AcquireResult r;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    r = co_await w.Acquire("k", milliseconds(90));
    asio::steady_timer t(ioc_, milliseconds(300));
    co_await t.async_wait(asio::use_awaitable);
    w.Close();
    server.Stop();
  });
  ASSERT_EQ(r.outcome, Outcome::kOk) << r.error;
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].kind, LockEvent::Kind::kRenewed);
  EXPECT_EQ(events[0].outcome, Outcome::kOk);
  EXPECT_EQ(events[0].token, r.token);
  EXPECT_EQ(events[1].outcome, Outcome::kUnknown);
  EXPECT_EQ(events[2].outcome, Outcome::kFail);
  EXPECT_EQ(events[3].kind, LockEvent::Kind::kLost);
  EXPECT_EQ(renewals, 3);  // none after the loss
  EXPECT_EQ(w.watched(), 0u);
  EXPECT_EQ(w.Counters()["locks_lost"], 1);
}

// What a renewal throws (here the sink recording its event) is not lost: it
// is the io_context's background failure, which fails the run.
TEST_F(RedisLockClientFakeTest, AThrowInTheWatchdogsRenewalsReachesTheBackgroundTasks) {
  FakeRedisServer server(ioc_.get_executor(), [&](const FakeRedisServer::Command& c) {
    if (c[0] == "EVAL" || c[0] == "EVALSHA") return FakeRedisServer::Action{":1\r\n"};
    return FakeRedisServer::Action{"+OK\r\n"};
  });
  WatchdogLockClient w(ioc_.get_executor(),
                       std::make_unique<RedisLockClient>(ioc_.get_executor(),
                                                         Options(server.port()), 1));
  w.SetEventSink([](LockEvent) { throw std::runtime_error("the history is full"); });
  TaskGroup& background = BackgroundTasks(ioc_.get_executor());
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    AcquireResult r = co_await w.Acquire("k", milliseconds(30));
    EXPECT_EQ(r.outcome, Outcome::kOk) << r.error;
    asio::steady_timer t(ioc_);
    for (int i = 0; i < 200 && !background.failed(); ++i) {
      t.expires_after(milliseconds(5));
      co_await t.async_wait(asio::use_awaitable);
    }
    w.Close();
    server.Stop();
  });
  ASSERT_TRUE(background.failed());
  EXPECT_EQ(*background.failure(), "watchdog of k: the history is full");
}

}  // namespace
}  // namespace locksmith

namespace locksmith {
namespace {

using testing::FakeRedisServer;
namespace asio = boost::asio;
using std::chrono::milliseconds;

// The broken blog-post recipes and the fenced acquire, on the wire.
class RedisRecipeTest : public ::testing::Test {
 protected:
  RedisLockClientOptions Options(uint16_t port, RedisLockRecipe recipe, bool fencing = false) {
    RedisLockClientOptions o;
    o.endpoint = {"127.0.0.1", port, "pw"};
    o.recipe = recipe;
    o.fencing = fencing;
    return o;
  }
  asio::io_context ioc_;
};

TEST_F(RedisRecipeTest, NamesMapToRecipes) {
  EXPECT_EQ(RedisRecipeNames().front(), "redis");
  EXPECT_EQ(*RedisRecipeOf("redis-get-set"), RedisLockRecipe::kGetSet);
  EXPECT_EQ(*RedisRecipeOf("redis-setnx-expire"), RedisLockRecipe::kSetnxExpire);
  EXPECT_EQ(*RedisRecipeOf("redis-del-unlock"), RedisLockRecipe::kDelUnlock);
  EXPECT_FALSE(RedisRecipeOf("redisson").ok());
}

TEST_F(RedisRecipeTest, FencedAcquireIncrementsInTheSameScript) {
  int64_t fence = 40;
  FakeRedisServer server(ioc_.get_executor(), [&](const FakeRedisServer::Command& c) {
    if (c[0] == "EVAL") {
      return FakeRedisServer::Action{fence < 42 ? ":" + std::to_string(++fence) + "\r\n"
                                                : "$-1\r\n"};
    }
    return FakeRedisServer::Action{"+OK\r\n"};
  });
  RedisLockClient client(ioc_.get_executor(),
                         Options(server.port(), RedisLockRecipe::kCorrect, true), 1);
  AcquireResult a, b, c;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    a = co_await client.Acquire("item-0", milliseconds(500));
    b = co_await client.Acquire("item-0", milliseconds(500));
    c = co_await client.Acquire("item-0", milliseconds(500));
    server.Stop();
  });
  EXPECT_EQ(a.outcome, Outcome::kOk);
  EXPECT_EQ(a.fence, 41);
  EXPECT_EQ(b.fence, 42);
  EXPECT_EQ(c.outcome, Outcome::kFail);
  EXPECT_FALSE(c.fence);
  EXPECT_EQ(server.commands()[1],
            (FakeRedisServer::Command{"EVAL", std::string(RedisLockClient::kFencedAcquireScript),
                                      "2", "item-0", "item-0:fence", a.token, "500"}));
}

TEST_F(RedisRecipeTest, GetSetChecksThenSetsWithoutNx) {
  FakeRedisServer server(ioc_.get_executor(), [&](const FakeRedisServer::Command& c) {
    if (c[0] == "GET") return FakeRedisServer::Action{"$-1\r\n"};
    return FakeRedisServer::Action{"+OK\r\n"};
  });
  RedisLockClient client(ioc_.get_executor(), Options(server.port(), RedisLockRecipe::kGetSet),
                         1);
  AcquireResult a;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    a = co_await client.Acquire("k", milliseconds(500));
    server.Stop();
  });
  EXPECT_EQ(a.outcome, Outcome::kOk);
  ASSERT_EQ(server.commands().size(), 3u);
  EXPECT_EQ(server.commands()[1], (FakeRedisServer::Command{"GET", "k"}));
  EXPECT_EQ(server.commands()[2], (FakeRedisServer::Command{"SET", "k", a.token, "PX", "500"}));
}

TEST_F(RedisRecipeTest, SetnxThenExpireAsASecondCommand) {
  bool expire_answers = true;
  FakeRedisServer server(ioc_.get_executor(), [&](const FakeRedisServer::Command& c) {
    if (c[0] == "SETNX") return FakeRedisServer::Action{":1\r\n"};
    if (c[0] == "PEXPIRE") return FakeRedisServer::Action{expire_answers ? ":1\r\n" : ":0\r\n"};
    return FakeRedisServer::Action{"+OK\r\n"};
  });
  RedisLockClient client(ioc_.get_executor(),
                         Options(server.port(), RedisLockRecipe::kSetnxExpire), 1);
  AcquireResult a, b;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    a = co_await client.Acquire("k", milliseconds(500));
    expire_answers = false;
    b = co_await client.Acquire("k", milliseconds(500));
    server.Stop();
  });
  EXPECT_EQ(a.outcome, Outcome::kOk);
  EXPECT_EQ(server.commands()[1], (FakeRedisServer::Command{"SETNX", "k", a.token}));
  EXPECT_EQ(server.commands()[2], (FakeRedisServer::Command{"PEXPIRE", "k", "500"}));
  // The key is held with no TTL: the acquire may have happened, for good.
  EXPECT_EQ(b.outcome, Outcome::kUnknown);
  EXPECT_EQ(client.Counters().at("expire_failures"), 1);
}

TEST_F(RedisRecipeTest, SetnxExpireCrashesBetweenItsTwoCommands) {
  FakeRedisServer server(ioc_.get_executor(), [&](const FakeRedisServer::Command& c) {
    return FakeRedisServer::Action{c[0] == "SETNX" ? ":1\r\n" : "+OK\r\n"};
  });
  RedisLockClient client(ioc_.get_executor(),
                         Options(server.port(), RedisLockRecipe::kSetnxExpire), 1);
  // The other recipes have no crash point of their own.
  RedisLockClient correct(ioc_.get_executor(), Options(server.port(), RedisLockRecipe::kCorrect),
                          2);
  EXPECT_FALSE(correct.OwnFaultPoints().contains(ClientFaultPoint::kAcquireAnswered));
  EXPECT_TRUE(client.OwnFaultPoints().contains(ClientFaultPoint::kAcquireAnswered));
  std::string asked;
  client.SetFaultPointHook(
      [&](ClientFaultPoint point, const std::string& key) -> asio::awaitable<ClientFaultEffect> {
        asked = std::string(ClientFaultPointName(point)) + " " + key;
        co_return ClientFaultEffect{true, milliseconds(0)};
      });
  AcquireResult a;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    a = co_await client.Acquire("k", milliseconds(500));
    server.Stop();
  });
  EXPECT_EQ(asked, "acquire-answered k");
  EXPECT_TRUE(a.crashed);
  EXPECT_EQ(a.outcome, Outcome::kUnknown);
  // SETNX went out; PEXPIRE never did.
  ASSERT_FALSE(server.commands().empty());
  EXPECT_EQ(server.commands().back(), (FakeRedisServer::Command{"SETNX", "k", a.token}));
}

TEST_F(RedisRecipeTest, DelUnlockDeletesWithoutOwnerCheck) {
  FakeRedisServer server(ioc_.get_executor(), [&](const FakeRedisServer::Command& c) {
    return FakeRedisServer::Action{c[0] == "DEL" ? ":1\r\n" : "+OK\r\n"};
  });
  RedisLockClient client(ioc_.get_executor(), Options(server.port(), RedisLockRecipe::kDelUnlock),
                         1);
  ReleaseResult r;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    r = co_await client.Release("k", "not-mine");
    server.Stop();
  });
  EXPECT_EQ(r.outcome, Outcome::kOk);
  EXPECT_EQ(server.commands().back(), (FakeRedisServer::Command{"DEL", "k"}));
}

}  // namespace
}  // namespace locksmith
