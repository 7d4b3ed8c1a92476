#include "backends/exec_lock_client.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include <boost/asio/io_context.hpp>

#include "backends/exec_clients.h"
#include "backends/testing/run_coroutine.h"
#include "base/testing/eventually.h"
#include "base/testing/temp_dir.h"
#include "cluster/proc_info.h"

namespace locksmith {
namespace {
namespace asio = boost::asio;
using namespace std::chrono_literals;
using testing::RunCoroutine;
using testing::Eventually;
using testing::TempDir;

const std::string kFakeAdapter =
    std::string(LOCKSMITH_SOURCE_DIR) + "/backends/testing/exec_programs/fake_adapter.py";

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// One exec client of fake_adapter.py in `mode`, misbehaving after `after`
// requests; what it reported goes to `reports`.
class ExecLockClientTest : public ::testing::Test {
 protected:
  void SetUp() override { signal(SIGPIPE, SIG_IGN); }

  std::unique_ptr<ExecLockClient> Client(const std::string& mode, int after = 0,
                                         MsRange info_backoff = {5, 50}) {
    ExecClientOptions o;
    o.info_backoff = info_backoff;
    o.argv = {kFakeAdapter, mode, std::to_string(after)};
    o.facts = {{"backend", "redis"}, {"nodes", nlohmann::json::array()}};
    o.index = 3;
    o.timeout = 2000ms;
    o.start_timeout = 10s;
    o.log_path = dir_.path() + "/client-3.log";
    o.report = [this](const std::string& line) { reports_.push_back(line); };
    return std::make_unique<ExecLockClient>(io_.get_executor(), supervisor_, std::move(o));
  }

  // Each way of breaking the protocol: the op in flight is info naming the
  // program and what it did, the run log is told, the program is killed.
  void ExpectMisbehaviourIsInfo(const std::string& mode, const std::string& says) {
    auto client = Client(mode);
    int first_pid = -1;
    RunCoroutine(io_, [&]() -> asio::awaitable<void> {
      Status connected = co_await client->Connect();
      EXPECT_TRUE(connected) << connected.error();
      if (!connected) co_return;
      first_pid = client->pid();
      AcquireResult a = co_await client->Acquire("lock-1", 1000ms);
      EXPECT_EQ(a.outcome, Outcome::kUnknown);
      EXPECT_NE(a.error.find(kFakeAdapter), std::string::npos) << a.error;
      EXPECT_NE(a.error.find(says), std::string::npos) << a.error;
      EXPECT_EQ(client->pid(), -1);
    });
    EXPECT_FALSE(supervisor_.Alive("client-3", first_pid));
    ASSERT_EQ(reports_.size(), 1u);
    EXPECT_NE(reports_[0].find(says), std::string::npos) << reports_[0];
    EXPECT_EQ(client->Counters().at("program_misbehaved"), 1);
    client->Close();
  }

  asio::io_context io_;
  ProcessSupervisor supervisor_{true};
  TempDir dir_;
  std::vector<std::string> reports_;
};

TEST_F(ExecLockClientTest, HandshakeThenAcquireAndRelease) {
  auto client = Client("stderr");
  RunCoroutine(io_, [&]() -> asio::awaitable<void> {
    Status connected = co_await client->Connect();
    EXPECT_TRUE(connected) << connected.error();
    if (!connected) co_return;
    EXPECT_EQ(client->hello().name, "fake");
    EXPECT_TRUE(client->hello().capabilities.fence);
    EXPECT_FALSE(client->hello().capabilities.shared);
    AcquireResult a = co_await client->Acquire("lock-1", 1000ms);
    EXPECT_EQ(a.outcome, Outcome::kOk) << a.error;
    EXPECT_EQ(a.fence, 1);
    EXPECT_EQ(a.validity_ms, 1000);
    AcquireResult busy = co_await client->Acquire("lock-1", 1000ms);
    EXPECT_EQ(busy.outcome, Outcome::kFail);
    EXPECT_TRUE(busy.busy);
    ReleaseResult r = co_await client->Release("lock-1", a.token);
    EXPECT_EQ(r.outcome, Outcome::kOk) << r.error;
    ExtendResult e = co_await client->Extend("lock-1", a.token, 1000ms);
    EXPECT_EQ(e.outcome, Outcome::kFail);  // no renew capability: nothing sent
  });
  EXPECT_TRUE(reports_.empty());
  EXPECT_EQ(client->Counters().at("program_starts"), 1);
  client->Close();
  EXPECT_EQ(ReadAll(dir_.path() + "/client-3.log"), "hello from the harness: client 3\n");
}

// A program that says when it reckoned its validity ("validity_at_ns")
// has the time its reply then spent on the way taken off: the lease ends
// where the program said, not where the harness happened to read it. One
// that reads another clock than CLOCK_MONOTONIC misbehaves: info.
TEST_F(ExecLockClientTest, AValidityCountsFromWhenTheProgramReckonedIt) {
  auto slow = Client("slow-reply");
  auto wall = Client("wall-at");
  RunCoroutine(io_, [&]() -> asio::awaitable<void> {
    for (auto* client : {slow.get(), wall.get()}) {
      Status connected = co_await client->Connect();
      EXPECT_TRUE(connected) << connected.error();
      if (!connected) co_return;
    }
    AcquireResult a = co_await slow->Acquire("lock-1", 1000ms);
    EXPECT_EQ(a.outcome, Outcome::kOk) << a.error;
    EXPECT_GT(a.validity_ms, 0);
    EXPECT_LE(a.validity_ms, 700);  // the 300 ms the reply waited are gone
    AcquireResult w = co_await wall->Acquire("lock-1", 1000ms);
    EXPECT_EQ(w.outcome, Outcome::kUnknown);
    EXPECT_NE(w.error.find("not CLOCK_MONOTONIC"), std::string::npos) << w.error;
    slow->Close();
    wall->Close();
  });
}

TEST_F(ExecLockClientTest, GarbageLineIsInfo) {
  ExpectMisbehaviourIsInfo("garbage", "printed a line that is not JSON");
}

TEST_F(ExecLockClientTest, ExitMidOpIsInfo) {
  ExpectMisbehaviourIsInfo("exit", "exited");
}

TEST_F(ExecLockClientTest, LineOverOneMebibyteIsInfo) {
  ExpectMisbehaviourIsInfo("long", "wrote a line over 1 MiB");
}

TEST_F(ExecLockClientTest, UnknownIdIsInfo) {
  ExpectMisbehaviourIsInfo("unknown-id", "replied to unknown id");
}

TEST_F(ExecLockClientTest, BadResultIsInfo) {
  ExpectMisbehaviourIsInfo("bad-result", "answered acquire 1 wrongly");
}

TEST_F(ExecLockClientTest, HangPastTheDeadlineIsInfoAndRestarts) {
  auto client = Client("hang", 1);  // answers the first request, hangs on the second
  RunCoroutine(io_, [&]() -> asio::awaitable<void> {
    Status connected = co_await client->Connect();
    EXPECT_TRUE(connected) << connected.error();
    if (!connected) co_return;
    const int first = client->pid();
    AcquireResult a = co_await client->Acquire("lock-1", 1000ms);
    EXPECT_EQ(a.outcome, Outcome::kOk);
    ReleaseResult r = co_await client->Release("lock-1", a.token);
    EXPECT_EQ(r.outcome, Outcome::kUnknown);
    EXPECT_NE(r.error.find("did not answer release 2 within 2000 ms"), std::string::npos)
        << r.error;
    // The next op starts a new program, which answers its first request.
    AcquireResult again = co_await client->Acquire("lock-1", 1000ms);
    EXPECT_EQ(again.outcome, Outcome::kOk) << again.error;
    EXPECT_NE(client->pid(), first);
    EXPECT_FALSE(supervisor_.Alive("client-3", first));
  });
  EXPECT_EQ(client->Counters().at("program_starts"), 2);
  // A late answer is counted apart from a broken protocol.
  EXPECT_EQ(client->Counters().at("program_timeouts"), 1);
  EXPECT_EQ(client->Counters().at("program_misbehaved"), 0);
  client->Close();
}

TEST_F(ExecLockClientTest, LockLostEventReachesTheSink) {
  auto client = Client("lost");
  std::vector<LockEvent> events;
  client->SetEventSink([&](LockEvent e) { events.push_back(std::move(e)); });
  RunCoroutine(io_, [&]() -> asio::awaitable<void> {
    Status connected = co_await client->Connect();
    EXPECT_TRUE(connected) << connected.error();
    if (!connected) co_return;
    AcquireResult a = co_await client->Acquire("lock-7", 1000ms);
    EXPECT_EQ(a.outcome, Outcome::kOk);
    // The event follows the reply: the next request's round trip sees it.
    AcquireResult b = co_await client->Acquire("lock-8", 1000ms);
    EXPECT_EQ(b.outcome, Outcome::kOk);
  });
  ASSERT_GE(events.size(), 1u);
  EXPECT_EQ(events[0].kind, LockEvent::Kind::kLost);
  EXPECT_EQ(events[0].key, "lock-7");
  EXPECT_EQ(events[0].error, "session expired");
  EXPECT_TRUE(reports_.empty());
  client->Close();
}

// A program cannot make up history: a lock-lost event for a lock its worker
// does not hold is a violation (the op in flight info, the program killed),
// never a recorded lock-lost.
TEST_F(ExecLockClientTest, ALockLostForALockNotHeldIsAViolation) {
  std::vector<LockEvent> events;
  auto fresh = Client("false-lost");  // the event comes before the acquire's reply
  fresh->SetEventSink([&](LockEvent e) { events.push_back(std::move(e)); });
  RunCoroutine(io_, [&]() -> asio::awaitable<void> {
    Status connected = co_await fresh->Connect();
    EXPECT_TRUE(connected) << connected.error();
    if (!connected) co_return;
    AcquireResult a = co_await fresh->Acquire("lock-1", 1000ms);
    EXPECT_EQ(a.outcome, Outcome::kUnknown);
    EXPECT_NE(a.error.find("does not hold (key \"lock-999\", token \"never-granted\")"),
              std::string::npos)
        << a.error;
  });
  EXPECT_TRUE(events.empty());
  ASSERT_EQ(reports_.size(), 1u);
  EXPECT_EQ(fresh->Counters().at("program_misbehaved"), 1);
  fresh->Close();
}

// A stream of events: the first ends the hold it names and is recorded, the
// rest are not; past kMaxEventsPerRequest since the last request the program
// is killed.
TEST_F(ExecLockClientTest, AFloodOfEventsRecordsOneAndKillsTheProgram) {
  std::vector<LockEvent> events;
  auto client = Client("flood");
  client->SetEventSink([&](LockEvent e) { events.push_back(std::move(e)); });
  RunCoroutine(io_, [&]() -> asio::awaitable<void> {
    Status connected = co_await client->Connect();
    EXPECT_TRUE(connected) << connected.error();
    if (!connected) co_return;
    AcquireResult a = co_await client->Acquire("lock-1", 1000ms);
    EXPECT_EQ(a.outcome, Outcome::kOk) << a.error;
    // The flood comes before any reply to this one.
    AcquireResult b = co_await client->Acquire("lock-2", 1000ms);
    (void)b;
  });
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].key, "lock-1");
  EXPECT_EQ(events[0].error, "flood");
  ASSERT_GE(reports_.size(), 1u);
  EXPECT_NE(reports_[0].find("sent more than 16 events since its last request"),
            std::string::npos)
      << reports_[0];
  EXPECT_GE(client->Counters().at("stale_events"), 1);
  client->Close();
}

// Under --fencing on an ok acquire without a fence contradicts the
// handshake: info, the program killed.
TEST_F(ExecLockClientTest, FencingOnAndAnAcquireWithoutAFenceIsAViolation) {
  ExecClientOptions o;
  o.argv = {"/bin/sh", "-c",
            "read l; echo '{\"id\":0,\"name\":\"liar\",\"capabilities\":{\"fence\":true}}';"
            "read l; echo '{\"id\":1,\"result\":\"ok\",\"token\":\"t\"}'; sleep 60"};
  o.fencing = true;
  o.report = [this](const std::string& line) { reports_.push_back(line); };
  ExecLockClient client(io_.get_executor(), supervisor_, std::move(o));
  RunCoroutine(io_, [&]() -> asio::awaitable<void> {
    Status s = co_await client.Connect();
    EXPECT_TRUE(s) << s.error();
    AcquireResult a = co_await client.Acquire("lock-1", 1000ms);
    EXPECT_EQ(a.outcome, Outcome::kUnknown);
    EXPECT_NE(a.error.find("without a \"fence\" under --fencing on"), std::string::npos)
        << a.error;
  });
  EXPECT_EQ(reports_.size(), 1u);
  client.Close();
}

// A program that answers every request info at once: each info op waits
// the back-off before it ends, so the worker makes at most one op per
// back-off (the program is not restarted: an info reply breaks no rule).
TEST_F(ExecLockClientTest, AnInfoIsFollowedByABackOff) {
  constexpr auto kBackoff = 20ms;
  constexpr auto kFor = 1000ms;
  auto client = Client("info", 0, MsRange{kBackoff.count(), kBackoff.count()});
  int ops = 0;
  RunCoroutine(io_, [&]() -> asio::awaitable<void> {
    Status connected = co_await client->Connect();
    EXPECT_TRUE(connected) << connected.error();
    if (!connected) co_return;
    const auto start = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - start < kFor) {
      AcquireResult a = co_await client->Acquire("lock-1", 1000ms);
      EXPECT_EQ(a.outcome, Outcome::kUnknown);
      ++ops;
    }
  });
  EXPECT_GE(ops, 1);
  EXPECT_LE(ops, kFor / kBackoff + 1);
  EXPECT_EQ(client->Counters().at("program_starts"), 1);
  EXPECT_TRUE(reports_.empty());
  client->Close();
}

TEST_F(ExecLockClientTest, AProgramThatCannotStartFailsConnect) {
  auto no_hello = Client("no-hello");
  auto missing = std::make_unique<ExecLockClient>(
      io_.get_executor(), supervisor_,
      ExecClientOptions{.argv = {dir_.path() + "/no-such-program"}, .index = 3});
  RunCoroutine(io_, [&]() -> asio::awaitable<void> {
    Status s = co_await no_hello->Connect();
    EXPECT_FALSE(s);
    EXPECT_NE(s.error().find("exited"), std::string::npos) << s.error();
    Status m = co_await missing->Connect();
    EXPECT_FALSE(m);
    EXPECT_NE(m.error().find("cannot start"), std::string::npos) << m.error();
    // An acquire of a client whose program cannot start sent nothing: fail.
    AcquireResult a = co_await missing->Acquire("lock-1", 1000ms);
    EXPECT_EQ(a.outcome, Outcome::kFail);
  });
  EXPECT_TRUE(supervisor_.Unreaped().empty());
}

TEST_F(ExecLockClientTest, ALockLostEventFromAProgramThatSaidItSendsNoneIsAViolation) {
  ExecClientOptions o;
  o.argv = {"/bin/sh", "-c",
            "read l; echo '{\"id\":0,\"name\":\"quiet\"}';"
            "read l; echo '{\"id\":1,\"result\":\"ok\",\"token\":\"t\"}';"
            "read l; echo '{\"event\":\"lock-lost\",\"key\":\"lock-1\",\"token\":\"t\"}';"
            "sleep 60"};
  o.report = [this](const std::string& line) { reports_.push_back(line); };
  ExecLockClient client(io_.get_executor(), supervisor_, std::move(o));
  std::vector<LockEvent> events;
  client.SetEventSink([&](LockEvent e) { events.push_back(std::move(e)); });
  RunCoroutine(io_, [&]() -> asio::awaitable<void> {
    Status s = co_await client.Connect();
    EXPECT_TRUE(s) << s.error();
    AcquireResult a = co_await client.Acquire("lock-1", 1000ms);
    EXPECT_EQ(a.outcome, Outcome::kOk) << a.error;
    AcquireResult b = co_await client.Acquire("lock-2", 1000ms);
    EXPECT_EQ(b.outcome, Outcome::kUnknown);
    EXPECT_NE(b.error.find("\"lock_lost\": false"), std::string::npos) << b.error;
  });
  EXPECT_TRUE(events.empty());
  client.Close();
}

TEST_F(ExecLockClientTest, FencingOnRefusesAProgramWithoutFences) {
  ExecClientOptions o;
  o.argv = {"/bin/sh", "-c",
            "read l; echo '{\"id\":0,\"name\":\"nofence\",\"version\":\"1\"}'; sleep 60"};
  o.fencing = true;
  ExecLockClient client(io_.get_executor(), supervisor_, std::move(o));
  RunCoroutine(io_, [&]() -> asio::awaitable<void> {
    Status s = co_await client.Connect();
    EXPECT_FALSE(s);
    EXPECT_NE(s.error().find("--fencing on"), std::string::npos) << s.error();
  });
  EXPECT_TRUE(supervisor_.Unreaped().empty());
}

TEST_F(ExecLockClientTest, PauseStopsTheProgramAndCrashKillsIt) {
  auto client = Client("ok");
  RunCoroutine(io_, [&]() -> asio::awaitable<void> {
    Status connected = co_await client->Connect();
    EXPECT_TRUE(connected) << connected.error();
    if (!connected) co_return;
  });
  const int pid = client->pid();
  client->SetPaused(true);
  // SIGSTOP lands asynchronously; /proc shows T once it has.
  auto state = [pid] {
    auto stat = ReadProcStat(pid);
    return stat ? stat->state : '?';
  };
  EXPECT_TRUE(Eventually([&] { return state() == 'T'; }, "the program stops"));
  EXPECT_EQ(client->Counters().at("program_stops"), 1);
  client->SetPaused(false);
  EXPECT_TRUE(Eventually([&] { return state() != 'T'; }, "the program goes on"));
  client->Crash();
  EXPECT_FALSE(supervisor_.Alive("client-3", pid));
  client->Close();
}

// The first client asked for launches every slot's program, so they start
// side by side; each later client is handed its running program.
TEST(ExecClientsTest, TheFirstClientLaunchesEverySlotsProgram) {
  signal(SIGPIPE, SIG_IGN);
  TempDir dir;
  asio::io_context io;
  ExecClientsOptions o;
  o.argv = {kFakeAdapter};
  o.log_dir = dir.path();
  ExecClients programs(o);
  auto slot = [](int i) { return ClientSlot{i, 0, ""}; };
  auto first = programs.NewClient(io.get_executor(), slot(0), 3, slot);
  auto second = programs.NewClient(io.get_executor(), slot(1), 3, slot);
  auto* exec = dynamic_cast<ExecLockClient*>(second.get());
  ASSERT_NE(exec, nullptr);
  EXPECT_GT(exec->pid(), 0);  // running before its Connect
  RunCoroutine(io, [&]() -> asio::awaitable<void> {
    Status connected = co_await second->Connect();
    EXPECT_TRUE(connected) << connected.error();
    AcquireResult a = co_await second->Acquire("lock-1", 1000ms);
    EXPECT_EQ(a.outcome, Outcome::kOk) << a.error;
  });
  EXPECT_EQ(exec->Counters().at("program_starts"), 1);
  first->Close();
  second->Close();
}

// Start checks every handshake before the workload: one client that
// answers its hello wrongly while the others answer well refuses the start
// with an error naming it, and every program is closed: nothing is left on
// the io_context (it runs out of work) and no program lives.
TEST(ExecClientsTest, OneFailedHandshakeClosesEveryProgram) {
  signal(SIGPIPE, SIG_IGN);
  TempDir dir;
  asio::io_context io;
  ExecClientsOptions o;
  o.argv = {kFakeAdapter, "bad-hello", "1"};
  o.log_dir = dir.path();
  ExecClients programs(o);
  auto slot = [](int i) { return ClientSlot{i, 0, ""}; };
  Status started = OkStatus();
  RunCoroutine(io, [&]() -> asio::awaitable<void> {
    started = co_await programs.Start(io.get_executor(), 3, slot, nullptr);
  });
  ASSERT_FALSE(started);
  EXPECT_NE(started.error().find("of client 1 printed a line that is not JSON"),
            std::string::npos)
      << started.error();
  io.restart();
  io.run_for(10s);
  EXPECT_TRUE(io.stopped()) << "work left on the io_context";
}

TEST(ExecClientsTest, FencingOnWithoutFencesRefusesTheStart) {
  signal(SIGPIPE, SIG_IGN);
  TempDir dir;
  asio::io_context io;
  ExecClientsOptions o;
  o.argv = {kFakeAdapter, "no-fence"};
  o.log_dir = dir.path();
  o.fencing = true;
  ExecClients programs(o);
  auto slot = [](int i) { return ClientSlot{i, 0, ""}; };
  Status started = OkStatus();
  RunCoroutine(io, [&]() -> asio::awaitable<void> {
    started = co_await programs.Start(io.get_executor(), 3, slot, nullptr);
  });
  ASSERT_FALSE(started);
  EXPECT_NE(started.error().find("--fencing on"), std::string::npos) << started.error();
  io.restart();
  io.run_for(10s);
  EXPECT_TRUE(io.stopped()) << "work left on the io_context";
}

// Once Start succeeded, each client is handed out handshaken: its Connect
// sends nothing more.
TEST(ExecClientsTest, StartHandshakesEveryClientOnce) {
  signal(SIGPIPE, SIG_IGN);
  TempDir dir;
  asio::io_context io;
  ExecClientsOptions o;
  o.argv = {kFakeAdapter};
  o.log_dir = dir.path();
  ExecClients programs(o);
  auto slot = [](int i) { return ClientSlot{i, 0, ""}; };
  std::vector<std::unique_ptr<LockClient>> clients;
  RunCoroutine(io, [&]() -> asio::awaitable<void> {
    Status started = co_await programs.Start(io.get_executor(), 2, slot, nullptr);
    EXPECT_TRUE(started) << started.error();
    for (int i = 0; i < 2; ++i) {
      clients.push_back(programs.NewClient(io.get_executor(), slot(i), 2, slot));
      Status connected = co_await clients.back()->Connect();
      EXPECT_TRUE(connected) << connected.error();
      AcquireResult a = co_await clients.back()->Acquire("lock-" + std::to_string(i), 1000ms);
      EXPECT_EQ(a.outcome, Outcome::kOk) << a.error;
      EXPECT_EQ(clients.back()->Counters().at("program_starts"), 1);
    }
  });
  for (auto& c : clients) c->Close();
}

// docs/exec-clients.md shows the minimal adapter whole: the file as it is.
TEST(ExecClientDocTest, TheProtocolPageShowsTheMinimalAdapterAsItIs) {
  const std::string doc = ReadAll(std::string(LOCKSMITH_SOURCE_DIR) + "/docs/exec-clients.md");
  const std::string adapter =
      ReadAll(std::string(LOCKSMITH_SOURCE_DIR) + "/adapters/minimal/lock_adapter.py");
  const size_t begin = doc.find("```python\n");
  ASSERT_NE(begin, std::string::npos);
  const size_t start = begin + std::string("```python\n").size();
  const size_t end = doc.find("```", start);
  ASSERT_NE(end, std::string::npos);
  EXPECT_EQ(doc.substr(start, end - start), adapter);
  // The page gives its length: "lock_adapter.py` (N lines".
  const std::string lines = std::to_string(std::count(adapter.begin(), adapter.end(), '\n'));
  EXPECT_NE(doc.find("lock_adapter.py` (" + lines + " lines"), std::string::npos) << lines;
}

}  // namespace
}  // namespace locksmith
