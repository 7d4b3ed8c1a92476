#include "backends/mariadb_lock_client.h"

#include <gtest/gtest.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "backends/testing/fake_mariadb_server.h"
#include "backends/testing/run_coroutine.h"

namespace locksmith {
namespace {

using boost::asio::ip::tcp;
using std::chrono::milliseconds;

TEST(SqlQuotedTest, EscapesWhatEndsOrBendsALiteral) {
  EXPECT_EQ(SqlQuoted("lock-0"), "'lock-0'");
  EXPECT_EQ(SqlQuoted("it's"), "'it\\'s'");
  EXPECT_EQ(SqlQuoted("a\\b"), "'a\\\\b'");
  EXPECT_EQ(SqlQuoted(std::string("n\0l\n\r\x1a", 6)), "'n\\0l\\n\\r\\Z'");
}

TEST(LockWaitSecondsTest, WholeSecondsNeverLongerThanTheWait) {
  EXPECT_EQ(LockWaitSeconds(milliseconds(0)), 0);
  EXPECT_EQ(LockWaitSeconds(milliseconds(999)), 0);
  EXPECT_EQ(LockWaitSeconds(milliseconds(2000)), 2);
  EXPECT_EQ(LockWaitSeconds(milliseconds(2999)), 2);
  EXPECT_EQ(LockWaitSeconds(milliseconds(-5)), 0);
}

TEST(MariadbRecipeTest, NamesTheDefaultFirst) {
  ASSERT_EQ(MariadbClientNames(), (std::vector<std::string>{"mysql-get-lock", "mysql-for-update"}));
  EXPECT_EQ(MariadbRecipeNamed("mysql-for-update"), MariadbRecipe::kForUpdate);
  EXPECT_EQ(MariadbRecipeNamed("mysql-get-lock"), MariadbRecipe::kGetLock);
}

// A client of a server at `port` of 127.0.0.1 with a 200 ms deadline.
MariadbLockClient ClientOf(boost::asio::io_context& io, uint16_t port, MariadbRecipe recipe) {
  MariadbLockClientOptions o;
  o.endpoint.host = "127.0.0.1";
  o.endpoint.port = port;
  o.endpoint.user = "locksmith";
  o.recipe = recipe;
  o.timeout = milliseconds(200);
  return MariadbLockClient(io.get_executor(), o, 7);
}

TEST(MariadbLockClientTest, AnAcquireThatNeverConnectedFailsNotBusy) {
  boost::asio::io_context io;
  uint16_t port = 0;
  {
    tcp::acceptor closed(io, tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0));
    port = closed.local_endpoint().port();
  }  // nothing listens there now: the connect is refused
  for (MariadbRecipe recipe : {MariadbRecipe::kGetLock, MariadbRecipe::kForUpdate}) {
    MariadbLockClient client = ClientOf(io, port, recipe);
    AcquireResult got;
    testing::RunCoroutine(io, [&]() -> boost::asio::awaitable<void> {
      got = co_await client.Acquire("lock-0", milliseconds(1000));
    });
    EXPECT_EQ(got.outcome, Outcome::kFail);
    EXPECT_FALSE(got.busy);
    EXPECT_NE(got.error.find("cannot connect"), std::string::npos) << got.error;
    EXPECT_EQ(got.token.size(), 32u);
  }
}

TEST(MariadbLockClientTest, ASilentServerFailsTheConnectAtItsDeadline) {
  boost::asio::io_context io;
  tcp::acceptor silent(io, tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0));
  tcp::socket accepted(io);
  silent.async_accept(accepted, [](boost::system::error_code) {});  // then never says a word
  MariadbLockClient client = ClientOf(io, silent.local_endpoint().port(), MariadbRecipe::kGetLock);
  AcquireResult got;
  ReleaseResult released;
  testing::RunCoroutine(io, [&]() -> boost::asio::awaitable<void> {
    got = co_await client.Acquire("lock-0", milliseconds(1000));
    released = co_await client.Release("lock-0", got.token);
  });
  EXPECT_EQ(got.outcome, Outcome::kFail);  // no handshake: nothing was sent
  EXPECT_NE(got.error.find("before the deadline"), std::string::npos) << got.error;
  EXPECT_EQ(released.outcome, Outcome::kFail);  // never held
  EXPECT_EQ(released.error, "not held by this client");
  EXPECT_EQ(client.Counters().at("connections"), 1);
}


using Fake = testing::FakeMariadbServer;

// What an acquire of lock-0 and the release of its token came to.
struct Cycle {
  AcquireResult acquired;
  ReleaseResult released;
};

// Both calls, in one coroutine.
Cycle AcquireAndRelease(boost::asio::io_context& io, MariadbLockClient& client,
                        const std::function<void()>& between = {}) {
  Cycle c;
  testing::RunCoroutine(io, [&]() -> boost::asio::awaitable<void> {
    c.acquired = co_await client.Acquire("lock-0", milliseconds(1000));
    if (between) between();
    c.released = co_await client.Release("lock-0", c.acquired.token);
  });
  return c;
}

bool StartsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

TEST(MariadbOutcomeTest, GetLockGrantsWithAFenceAndReleases) {
  boost::asio::io_context io;
  Fake server(io.get_executor(), [](const std::string& sql) {
    if (StartsWith(sql, "INSERT INTO fences")) return Fake::Ok(42);
    return Fake::Row("1");
  });
  MariadbLockClientOptions o;
  o.endpoint.port = server.port();
  o.timeout = milliseconds(500);
  o.fencing = true;
  MariadbLockClient client(io.get_executor(), o, 7);
  const Cycle c = AcquireAndRelease(io, client);
  ASSERT_EQ(c.acquired.outcome, Outcome::kOk) << c.acquired.error;
  EXPECT_TRUE(c.acquired.session_lease);
  EXPECT_EQ(c.acquired.validity_ms, 1000);
  EXPECT_EQ(c.acquired.fence, 42);
  EXPECT_EQ(c.released.outcome, Outcome::kOk) << c.released.error;
  EXPECT_EQ(server.queries(),
            (std::vector<std::string>{"SELECT GET_LOCK('lock-0', 0)",
                                      "INSERT INTO fences (name) VALUES ('lock-0')",
                                      "SELECT RELEASE_LOCK('lock-0')"}));
  server.Stop();
}

TEST(MariadbOutcomeTest, GetLockRefusalsAndErrorsFailOnlyTheRefusalIsBusy) {
  for (auto [answer, busy] : {std::pair{Fake::Row("0"), true},
                              std::pair{Fake::Row(std::nullopt), false},
                              std::pair{Fake::Err(1045), false}}) {
    boost::asio::io_context io;
    Fake server(io.get_executor(), [answer = answer](const std::string&) { return answer; });
    MariadbLockClientOptions o;
    o.endpoint.port = server.port();
    MariadbLockClient client(io.get_executor(), o, 7);
    const Cycle c = AcquireAndRelease(io, client);
    EXPECT_EQ(c.acquired.outcome, Outcome::kFail) << c.acquired.error;
    EXPECT_EQ(c.acquired.busy, busy) << c.acquired.error;
    EXPECT_EQ(c.released.error, "not held by this client");
    server.Stop();
  }
}

TEST(MariadbOutcomeTest, AnUnansweredLockStatementIsUnknownAndClosesTheConnection) {
  boost::asio::io_context io;
  int calls = 0;
  Fake server(io.get_executor(), [&](const std::string&) {
    return ++calls == 1 ? Fake::Silence() : Fake::Row("1");
  });
  MariadbLockClientOptions o;
  o.endpoint.port = server.port();
  o.timeout = milliseconds(200);
  MariadbLockClient client(io.get_executor(), o, 7);
  const Cycle first = AcquireAndRelease(io, client);
  EXPECT_EQ(first.acquired.outcome, Outcome::kUnknown);
  EXPECT_EQ(first.acquired.error, "no reply before the deadline");
  const Cycle second = AcquireAndRelease(io, client);
  EXPECT_EQ(second.acquired.outcome, Outcome::kOk) << second.acquired.error;
  EXPECT_EQ(server.logins(), 2);  // the connection in doubt was not used again
  server.Stop();
}

TEST(MariadbOutcomeTest, AReleaseAfterTheServerDroppedTheConnectionSaysTheLockWasLost) {
  boost::asio::io_context io;
  Fake server(io.get_executor(), [](const std::string&) { return Fake::Row("1"); });
  MariadbLockClientOptions o;
  o.endpoint.port = server.port();
  MariadbLockClient client(io.get_executor(), o, 7);
  boost::asio::steady_timer settle(io);
  Cycle c;
  testing::RunCoroutine(io, [&]() -> boost::asio::awaitable<void> {
    c.acquired = co_await client.Acquire("lock-0", milliseconds(1000));
    server.DropConnections();  // the holder's lock dies with its connection
    // The close is on loopback, in this process: this only lets its FIN land.
    settle.expires_after(milliseconds(50));
    co_await settle.async_wait(boost::asio::use_awaitable);
    c.released = co_await client.Release("lock-0", c.acquired.token);
  });
  ASSERT_EQ(c.acquired.outcome, Outcome::kOk);
  EXPECT_EQ(c.released.outcome, Outcome::kFail);
  EXPECT_EQ(c.released.error, "lock lost: its connection is gone");
  EXPECT_EQ(client.Counters().at("locks_lost"), 1);
  EXPECT_EQ(server.queries().size(), 1u) << "nothing sent on a connection known to be gone";
  server.Stop();
}

TEST(MariadbOutcomeTest, ForUpdateQueuesWithinTheWaitAndCommits) {
  boost::asio::io_context io;
  Fake server(io.get_executor(), [](const std::string& sql) {
    return StartsWith(sql, "SELECT name") ? Fake::Row("lock-0") : Fake::Ok();
  });
  MariadbLockClientOptions o;
  o.endpoint.port = server.port();
  o.recipe = MariadbRecipe::kForUpdate;
  MariadbLockClient client(io.get_executor(), o, 7);
  client.SetAcquireWait(milliseconds(2500));
  const Cycle c = AcquireAndRelease(io, client);
  ASSERT_EQ(c.acquired.outcome, Outcome::kOk) << c.acquired.error;
  EXPECT_EQ(c.released.outcome, Outcome::kOk) << c.released.error;
  EXPECT_EQ(server.queries(),
            (std::vector<std::string>{
                "INSERT IGNORE INTO locks (name) VALUES ('lock-0')", "START TRANSACTION",
                "SELECT name FROM locks WHERE name = 'lock-0' FOR UPDATE WAIT 2", "COMMIT"}));
  server.Stop();
}

TEST(MariadbOutcomeTest, ForUpdateThatWaitedItsWholeWaitIsBusyAndRollsBack) {
  boost::asio::io_context io;
  Fake server(io.get_executor(), [](const std::string& sql) {
    return StartsWith(sql, "SELECT name") ? Fake::Err(1205) : Fake::Ok();
  });
  MariadbLockClientOptions o;
  o.endpoint.port = server.port();
  o.recipe = MariadbRecipe::kForUpdate;
  MariadbLockClient client(io.get_executor(), o, 7);
  const Cycle c = AcquireAndRelease(io, client);
  EXPECT_EQ(c.acquired.outcome, Outcome::kFail);
  EXPECT_TRUE(c.acquired.busy);
  ASSERT_EQ(server.queries().size(), 4u);
  EXPECT_EQ(server.queries()[2], "SELECT name FROM locks WHERE name = 'lock-0' FOR UPDATE NOWAIT");
  EXPECT_EQ(server.queries()[3], "ROLLBACK");
  server.Stop();
}

}  // namespace
}  // namespace locksmith
