// Unit tests for RedisConnection against FakeRedisServer on loopback: FIFO
// matching under pipelining, AUTH, and every failure path's classification
// (kNotSent vs kInDoubt vs kClosed). No real Redis, no timing assertions.
#include "backends/redis_connection.h"

#include <array>
#include <chrono>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "backends/task_group.h"
#include "backends/testing/fake_redis_server.h"
#include "backends/testing/run_coroutine.h"

namespace locksmith {
namespace {

using testing::FakeRedisServer;

namespace asio = boost::asio;
using Clock = RedisConnection::Clock;
using std::chrono::milliseconds;

constexpr std::array<std::string_view, 1> kPing{"PING"};

Clock::time_point In(milliseconds d) { return Clock::now() + d; }

FakeRedisServer::Action Reply(std::string bytes) { return {std::move(bytes), false}; }

RedisConnectionOptions Options(uint16_t port, std::string password = "") {
  RedisConnectionOptions o;
  o.endpoint = {"127.0.0.1", port, std::move(password)};
  o.connect_timeout = milliseconds(2000);
  return o;
}

// A port with nothing listening: bind an ephemeral port, then close it.
uint16_t DeadPort() {
  asio::io_context ioc;
  asio::ip::tcp::acceptor a(ioc, {asio::ip::make_address("127.0.0.1"), 0});
  return a.local_endpoint().port();
}

TEST(RedisConnectionTest, PipelinedRepliesAreMatchedInOrder) {
  asio::io_context ioc;
  FakeRedisServer server(ioc.get_executor(), [](const FakeRedisServer::Command& c) {
    return Reply("$" + std::to_string(c[1].size()) + "\r\n" + c[1] + "\r\n");
  });
  RedisConnection conn(ioc.get_executor(), Options(server.port()));
  std::vector<std::string> got(20);
  testing::RunCoroutine(ioc, [&]() -> asio::awaitable<void> {
    auto one = [&](int i) -> asio::awaitable<void> {
      const std::string arg = "v" + std::to_string(i);
      const std::array<std::string_view, 2> args{"ECHO", arg};
      RedisResponse r = co_await conn.Command(args, In(milliseconds(5000)));
      got[static_cast<size_t>(i)] = r.ok() ? r.reply.str : "error: " + r.message;
    };
    // Twenty commands in flight on one connection at once.
    auto ex = co_await asio::this_coro::executor;
    int done = 0;
    for (int i = 0; i < 20; ++i) {
      asio::co_spawn(ex, one(i), [&](std::exception_ptr) { ++done; });
    }
    asio::steady_timer t(ex);
    while (done < 20) {
      t.expires_after(milliseconds(1));
      co_await t.async_wait(asio::use_awaitable);
    }
    server.Stop();
  });
  for (int i = 0; i < 20; ++i) EXPECT_EQ(got[static_cast<size_t>(i)], "v" + std::to_string(i));
  EXPECT_EQ(server.connections(), 1);
}

TEST(RedisConnectionTest, CommandsEnqueuedInOneHandlerLeaveInOneWrite) {
  asio::io_context ioc;
  FakeRedisServer server(ioc.get_executor(),
                         [](const FakeRedisServer::Command&) { return Reply("+PONG\r\n"); });
  RedisConnection conn(ioc.get_executor(), Options(server.port()));
  int answered = 0;
  testing::RunCoroutine(ioc, [&]() -> asio::awaitable<void> {
    EXPECT_TRUE(co_await conn.Connect());
    // Ten callers in one handler, as when one read resumes many clients.
    for (int i = 0; i < 10; ++i) {
      conn.AsyncCommand(kPing, In(milliseconds(5000)),
                        [&](RedisResponse r) { answered += r.ok(); });
    }
    asio::steady_timer t(co_await asio::this_coro::executor);
    while (answered < 10) {
      t.expires_after(milliseconds(1));
      co_await t.async_wait(asio::use_awaitable);
    }
    server.Stop();
  });
  EXPECT_EQ(answered, 10);
  EXPECT_EQ(server.largest_batch(), 10u) << "the server read them all at once";
}

TEST(RedisConnectionTest, SendsAuthFirstAndAnswersAfterIt) {
  asio::io_context ioc;
  FakeRedisServer server(ioc.get_executor(), [](const FakeRedisServer::Command& c) {
    return Reply(c[0] == "AUTH" ? "+OK\r\n" : "+PONG\r\n");
  });
  RedisConnection conn(ioc.get_executor(), Options(server.port(), "s3cret"));
  std::optional<Status> status;
  testing::RunCoroutine(ioc, [&]() -> asio::awaitable<void> {
    status = co_await conn.Connect();
    server.Stop();
  });
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(status->ok()) << status->error();
  ASSERT_EQ(server.commands().size(), 2u);
  EXPECT_EQ(server.commands()[0], (FakeRedisServer::Command{"AUTH", "s3cret"}));
  EXPECT_EQ(server.commands()[1], (FakeRedisServer::Command{"PING"}));
}

TEST(RedisConnectionTest, RejectedAuthFailsQueuedCommandsAsNotSent) {
  asio::io_context ioc;
  FakeRedisServer server(ioc.get_executor(), [](const FakeRedisServer::Command&) {
    return Reply("-WRONGPASS invalid username-password pair or user is disabled.\r\n");
  });
  RedisConnection conn(ioc.get_executor(), Options(server.port(), "bad"));
  RedisResponse r;
  testing::RunCoroutine(ioc, [&]() -> asio::awaitable<void> {
    r = co_await conn.Command(kPing, In(milliseconds(5000)));
    server.Stop();
  });
  EXPECT_EQ(r.error, RedisCallError::kNotSent);
  EXPECT_NE(r.message.find("WRONGPASS"), std::string::npos) << r.message;
  ASSERT_EQ(server.commands().size(), 1u);  // PING never went out
}

TEST(RedisConnectionTest, DeadlineWhileAuthIsUnansweredIsNotSent) {
  asio::io_context ioc;
  FakeRedisServer server(ioc.get_executor(),
                         [](const FakeRedisServer::Command&) { return Reply(""); });
  RedisConnection conn(ioc.get_executor(), Options(server.port(), "pw"));
  RedisResponse r;
  testing::RunCoroutine(ioc, [&]() -> asio::awaitable<void> {
    r = co_await conn.Command(kPing, In(milliseconds(100)));
    server.Stop();
  });
  // The PING waited behind the handshake and never reached the socket.
  EXPECT_EQ(r.error, RedisCallError::kNotSent);
  ASSERT_EQ(server.commands().size(), 1u);
  EXPECT_EQ(server.commands()[0][0], "AUTH");
}

TEST(RedisConnectionTest, ConnectionRefusedIsNotSent) {
  asio::io_context ioc;
  RedisConnection conn(ioc.get_executor(), Options(DeadPort()));
  RedisResponse r;
  testing::RunCoroutine(ioc, [&]() -> asio::awaitable<void> {
    r = co_await conn.Command(kPing, In(milliseconds(5000)));
  });
  EXPECT_EQ(r.error, RedisCallError::kNotSent);
  EXPECT_NE(r.message.find("connect"), std::string::npos) << r.message;
}

TEST(RedisConnectionTest, DeadlineAfterWriteIsInDoubtAndTheNextCallReconnects) {
  asio::io_context ioc;
  int pings = 0;
  FakeRedisServer server(ioc.get_executor(), [&](const FakeRedisServer::Command&) {
    // The first PING is swallowed; a late reply to it would be stale.
    return Reply(++pings == 1 ? "" : "+PONG\r\n");
  });
  RedisConnection conn(ioc.get_executor(), Options(server.port()));
  RedisResponse first, second;
  testing::RunCoroutine(ioc, [&]() -> asio::awaitable<void> {
    first = co_await conn.Command(kPing, In(milliseconds(100)));
    second = co_await conn.Command(kPing, In(milliseconds(5000)));
    server.Stop();
  });
  EXPECT_EQ(first.error, RedisCallError::kInDoubt);
  EXPECT_TRUE(second.ok()) << second.message;
  EXPECT_TRUE(second.reply.IsStatus("PONG"));
  EXPECT_EQ(server.connections(), 2);
  EXPECT_EQ(conn.connects(), 2u);
}

TEST(RedisConnectionTest, ServerClosingAfterTheCommandIsInDoubt) {
  asio::io_context ioc;
  FakeRedisServer server(ioc.get_executor(), [](const FakeRedisServer::Command&) {
    return FakeRedisServer::Action{"", true};
  });
  RedisConnection conn(ioc.get_executor(), Options(server.port()));
  RedisResponse r;
  testing::RunCoroutine(ioc, [&]() -> asio::awaitable<void> {
    r = co_await conn.Command(kPing, In(milliseconds(5000)));
    server.Stop();
  });
  EXPECT_EQ(r.error, RedisCallError::kInDoubt);
}

TEST(RedisConnectionTest, GarbageReplyIsInDoubtAndDropsTheConnection) {
  asio::io_context ioc;
  int n = 0;
  FakeRedisServer server(ioc.get_executor(), [&](const FakeRedisServer::Command&) {
    return Reply(++n == 1 ? "?garbage\r\n" : "+PONG\r\n");
  });
  RedisConnection conn(ioc.get_executor(), Options(server.port()));
  RedisResponse first, second;
  testing::RunCoroutine(ioc, [&]() -> asio::awaitable<void> {
    first = co_await conn.Command(kPing, In(milliseconds(5000)));
    second = co_await conn.Command(kPing, In(milliseconds(5000)));
    server.Stop();
  });
  EXPECT_EQ(first.error, RedisCallError::kInDoubt);
  EXPECT_NE(first.message.find("protocol error"), std::string::npos) << first.message;
  EXPECT_TRUE(second.ok()) << second.message;
  EXPECT_EQ(server.connections(), 2);
}

TEST(RedisConnectionTest, UnsolicitedReplyIsAProtocolError) {
  asio::io_context ioc;
  FakeRedisServer server(ioc.get_executor(), [](const FakeRedisServer::Command&) {
    return Reply("+PONG\r\n+EXTRA\r\n");
  });
  RedisConnection conn(ioc.get_executor(), Options(server.port()));
  RedisResponse first, second;
  testing::RunCoroutine(ioc, [&]() -> asio::awaitable<void> {
    first = co_await conn.Command(kPing, In(milliseconds(5000)));
    // The extra reply arrives with no command pending: the stream is not
    // trusted any more; the next call must run on a fresh connection.
    asio::steady_timer t(co_await asio::this_coro::executor, milliseconds(50));
    co_await t.async_wait(asio::use_awaitable);
    second = co_await conn.Command(kPing, In(milliseconds(5000)));
    server.Stop();
  });
  EXPECT_TRUE(first.ok());
  EXPECT_TRUE(second.ok()) << second.message;
  EXPECT_TRUE(second.reply.IsStatus("PONG"));
  EXPECT_EQ(server.connections(), 2);
}

TEST(RedisConnectionTest, CloseCompletesPendingAsClosedAndLaterCallsAsNotSent) {
  asio::io_context ioc;
  FakeRedisServer server(ioc.get_executor(),
                         [](const FakeRedisServer::Command&) { return Reply(""); });
  RedisConnection conn(ioc.get_executor(), Options(server.port()));
  RedisResponse pending, after;
  testing::RunCoroutine(ioc, [&]() -> asio::awaitable<void> {
    auto ex = co_await asio::this_coro::executor;
    bool done = false;
    asio::co_spawn(
        ex,
        [&]() -> asio::awaitable<void> {
          pending = co_await conn.Command(kPing, In(milliseconds(60000)));
        },
        [&](std::exception_ptr) { done = true; });
    asio::steady_timer t(ex);
    while (server.commands().empty()) {
      t.expires_after(milliseconds(1));
      co_await t.async_wait(asio::use_awaitable);
    }
    conn.Close();
    while (!done) {
      t.expires_after(milliseconds(1));
      co_await t.async_wait(asio::use_awaitable);
    }
    after = co_await conn.Command(kPing, In(milliseconds(5000)));
    server.Stop();
  });
  EXPECT_EQ(pending.error, RedisCallError::kClosed);
  EXPECT_EQ(after.error, RedisCallError::kNotSent);
}


// A subscribed connection's message handler that throws ends the read loop
// with the exception: it is the io_context's background failure (the run
// fails with it), not a connection that silently stops reading.
TEST(RedisConnectionTest, AThrowInTheReadLoopReachesTheBackgroundTasks) {
  asio::io_context ioc;
  FakeRedisServer server(ioc.get_executor(), [](const FakeRedisServer::Command&) {
    // The SUBSCRIBE's confirmation, then a message on the channel.
    return Reply("*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n"
                 "*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$5\r\nhello\r\n");
  });
  const uint16_t port = server.port();
  RedisConnectionOptions o = Options(port);
  o.on_message = [](const RedisReply&) { throw std::runtime_error("handler broke"); };
  RedisConnection conn(ioc.get_executor(), o);
  TaskGroup& background = BackgroundTasks(ioc.get_executor());
  RedisResponse subscribed;
  testing::RunCoroutine(ioc, [&]() -> asio::awaitable<void> {
    constexpr std::array<std::string_view, 2> kSubscribe{"SUBSCRIBE", "ch"};
    subscribed = co_await conn.Command(kSubscribe, In(milliseconds(5000)));
    asio::steady_timer t(co_await asio::this_coro::executor);
    for (int i = 0; i < 200 && !background.failed(); ++i) {
      t.expires_after(milliseconds(5));
      co_await t.async_wait(asio::use_awaitable);
    }
    conn.Close();
    server.Stop();
  });
  EXPECT_TRUE(subscribed.ok()) << subscribed.message;
  ASSERT_TRUE(background.failed());
  EXPECT_EQ(*background.failure(),
            "redis connection to 127.0.0.1:" + std::to_string(port) + ": handler broke");
}

}  // namespace
}  // namespace locksmith
