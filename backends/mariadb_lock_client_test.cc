#include "backends/mariadb_lock_client.h"

#include <gtest/gtest.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/io_context.hpp>

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

}  // namespace
}  // namespace locksmith
