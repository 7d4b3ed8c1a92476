// PgConnection and PgLockClient without a PostgreSQL server: a session that
// cannot be opened is an error by its deadline (a listener that never
// answers), a statement without a session certainly did not run (kNotSent),
// and a closed client sends nothing (fail).
#include "backends/pg_connection.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>

#include "backends/pg_lock_client.h"
#include "backends/testing/run_coroutine.h"

namespace locksmith {
namespace {

using namespace std::chrono_literals;
using testing::RunCoroutine;

// A loopback listener that never accepts: the kernel completes the TCP
// handshake, and no byte ever comes back.
class SilentListener {
 public:
  SilentListener() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    listen(fd_, 16);
    socklen_t len = sizeof(addr);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
  }
  ~SilentListener() { close(fd_); }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

PgEndpoint EndpointAt(int port) {
  PgEndpoint e;
  e.address = "127.0.0.1";
  e.port = port;
  e.password = "secret";
  return e;
}

TEST(PgConnectionTest, ASessionThatNeverAnswersIsAnErrorByTheDeadline) {
  SilentListener silent;
  boost::asio::io_context ioc;
  PgConnection connection(ioc.get_executor(), EndpointAt(silent.port()));
  Status connected = Error{"not run"};
  RunCoroutine(ioc, [&]() -> boost::asio::awaitable<void> {
    connected = co_await connection.Connect(PgConnection::Clock::now() + 200ms);
  });
  ASSERT_FALSE(connected);
  EXPECT_NE(connected.error().find("no answer by the deadline"), std::string::npos)
      << connected.error();
  EXPECT_FALSE(connection.connected());
}

TEST(PgConnectionTest, AStatementWithoutASessionCertainlyDidNotRun) {
  boost::asio::io_context ioc;
  PgConnection connection(ioc.get_executor(), EndpointAt(1));
  PgResponse r;
  RunCoroutine(ioc, [&]() -> boost::asio::awaitable<void> {
    const std::vector<std::string> params;
    r = co_await connection.Query("SELECT 1", params, PgConnection::Clock::now() + 200ms);
  });
  EXPECT_EQ(r.error, PgCallError::kNotSent);
}

TEST(PgLockClientTest, AClosedClientFailsWithoutSending) {
  boost::asio::io_context ioc;
  PgLockClientOptions options;
  options.server = EndpointAt(1);
  for (PgLockKind kind : {PgLockKind::kAdvisory, PgLockKind::kLockTable}) {
    PgLockClient client(ioc.get_executor(), options, kind, 7);
    client.Close();
    AcquireResult acquired;
    ReleaseResult released;
    RunCoroutine(ioc, [&]() -> boost::asio::awaitable<void> {
      acquired = co_await client.Acquire("lock-0", 1000ms);
      released = co_await client.Release("lock-0", "token");
    });
    EXPECT_EQ(acquired.outcome, Outcome::kFail);
    EXPECT_EQ(released.outcome, Outcome::kFail);
  }
}

}  // namespace
}  // namespace locksmith
