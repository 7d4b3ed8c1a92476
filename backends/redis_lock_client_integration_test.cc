// Integration tests for RedisLockClient against a real redis-server started
// by the test on 127.0.0.1 (a free port, a password, no persistence, a temp
// dir), killed by pid at the end even when a test fails (RAII, and
// PR_SET_PDEATHSIG if the test binary itself dies).
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <hiredis/hiredis.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "backends/redis_lock_client.h"
#include "backends/test_coroutine.h"

namespace locksmith {
namespace {

namespace asio = boost::asio;
using std::chrono::milliseconds;

constexpr char kPassword[] = "locksmith-test-pw";

uint16_t FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

// One redis-server child process. Thread-safety: none.
class RedisServerProcess {
 public:
  RedisServerProcess() : port_(FreePort()) {
    char tmpl[] = "/tmp/locksmith-redis-test-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
  }
  ~RedisServerProcess() {
    Kill();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  RedisServerProcess(const RedisServerProcess&) = delete;
  RedisServerProcess& operator=(const RedisServerProcess&) = delete;

  uint16_t port() const { return port_; }
  pid_t pid() const { return pid_; }

  // Starts the server (again, on the same port after Kill) and waits until
  // it answers an authenticated PING.
  bool Start() {
    const std::string port = std::to_string(port_);
    const std::string log = dir_ + "/redis.log";
    std::vector<std::string> args = {
        "redis-server", "--port",    port, "--bind",       "127.0.0.1", "--requirepass",
        kPassword,      "--save",    "",   "--appendonly", "no",        "--dir",
        dir_,           "--logfile", log,  "--daemonize",  "no"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      int devnull = ::open("/dev/null", O_RDWR);
      ::dup2(devnull, 1);
      ::dup2(devnull, 2);
      ::execvp("redis-server", argv.data());
      ::_exit(127);
    }
    for (int i = 0; i < 100; ++i) {
      if (Ping()) return true;
      std::this_thread::sleep_for(milliseconds(50));
    }
    return false;
  }

  void Kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGCONT);
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  void Pause() { ::kill(pid_, SIGSTOP); }
  void Resume() { ::kill(pid_, SIGCONT); }

  // Runs one admin command on a fresh synchronous connection; returns the
  // reply as text ("(nil)" for nil), or nullopt if the server is unreachable.
  std::optional<std::string> Admin(const std::vector<std::string>& args) const {
    timeval tv{2, 0};
    redisContext* c = redisConnectWithTimeout("127.0.0.1", port_, tv);
    if (c == nullptr || c->err) {
      if (c) redisFree(c);
      return std::nullopt;
    }
    std::optional<std::string> out;
    auto run = [&](const std::vector<std::string>& a) -> std::optional<std::string> {
      std::vector<const char*> argv;
      std::vector<size_t> lens;
      for (auto& s : a) {
        argv.push_back(s.c_str());
        lens.push_back(s.size());
      }
      auto* r = static_cast<redisReply*>(
          redisCommandArgv(c, static_cast<int>(a.size()), argv.data(), lens.data()));
      if (r == nullptr) return std::nullopt;
      std::string text = r->type == REDIS_REPLY_NIL       ? "(nil)"
                         : r->type == REDIS_REPLY_INTEGER ? std::to_string(r->integer)
                                                          : std::string(r->str, r->len);
      freeReplyObject(r);
      return text;
    };
    if (run({"AUTH", kPassword}) == std::optional<std::string>("OK")) out = run(args);
    redisFree(c);
    return out;
  }

 private:
  bool Ping() const { return Admin({"PING"}) == std::optional<std::string>("PONG"); }

  uint16_t port_;
  std::string dir_;
  pid_t pid_ = -1;
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
  void SetUp() override { ASSERT_TRUE(server_.Start()) << "redis-server did not start"; }

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
  ASSERT_TRUE(server_.Start());
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

}  // namespace
}  // namespace locksmith
