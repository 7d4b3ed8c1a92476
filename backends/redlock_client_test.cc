// Unit tests for RedlockClient: quorum, drift and validity, the per-master
// reply classes and the outcome rules as pure functions, then the client
// against five FakeRedisServers (same token everywhere, which masters
// granted, unlock on every master after a failed acquire).
#include "backends/redlock_client.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "backends/testing/fake_redis_server.h"
#include "backends/testing/run_coroutine.h"

namespace locksmith {
namespace {

using testing::FakeRedisServer;
namespace asio = boost::asio;
using std::chrono::milliseconds;
using Set = RedlockSetReply;
using Unlock = RedlockUnlockReply;

RedisResponse Reply(RedisReply::Type type, std::string str = "", int64_t integer = 0) {
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

TEST(RedlockRulesTest, QuorumIsAMajority) {
  EXPECT_EQ(RedlockQuorum(1), 1);
  EXPECT_EQ(RedlockQuorum(3), 2);
  EXPECT_EQ(RedlockQuorum(5), 3);
  EXPECT_EQ(RedlockQuorum(7), 4);
}

TEST(RedlockRulesTest, ValiditySubtractsElapsedAndDrift) {
  EXPECT_EQ(RedlockDriftMs(1000), 12);  // 1% + 2 ms
  EXPECT_EQ(RedlockDriftMs(1050), 13);  // rounded up, against the client
  EXPECT_EQ(RedlockValidityMs(1000, 30, true), 958);
  EXPECT_EQ(RedlockValidityMs(1000, 30, false), 970);
  EXPECT_EQ(RedlockValidityMs(100, 98, true), -1);
}

TEST(RedlockRulesTest, SetRepliesAreGrantedRefusedOrInDoubt) {
  std::string why;
  EXPECT_EQ(ClassifyRedlockSet(Reply(RedisReply::Type::kStatus, "OK"), &why), Set::kGranted);
  EXPECT_EQ(ClassifyRedlockSet(Reply(RedisReply::Type::kNil), &why), Set::kRefused);
  EXPECT_EQ(ClassifyRedlockSet(Transport(RedisCallError::kNotSent), &why), Set::kRefused);
  EXPECT_EQ(ClassifyRedlockSet(Reply(RedisReply::Type::kError, "LOADING x"), &why),
            Set::kRefused);
  EXPECT_EQ(ClassifyRedlockSet(Transport(RedisCallError::kInDoubt), &why), Set::kInDoubt);
  EXPECT_EQ(ClassifyRedlockSet(Transport(RedisCallError::kClosed), &why), Set::kInDoubt);
  EXPECT_EQ(ClassifyRedlockSet(Reply(RedisReply::Type::kError, "ERR odd"), &why),
            Set::kInDoubt);
}

TEST(RedlockRulesTest, UnlockRepliesTellARunScriptFromOneThatNeverRan) {
  std::string why;
  EXPECT_EQ(ClassifyRedlockUnlock(Reply(RedisReply::Type::kInteger, "", 1), &why),
            Unlock::kDeleted);
  EXPECT_EQ(ClassifyRedlockUnlock(Reply(RedisReply::Type::kInteger, "", 0), &why),
            Unlock::kNotOurs);
  EXPECT_EQ(ClassifyRedlockUnlock(Transport(RedisCallError::kNotSent), &why), Unlock::kNotRun);
  EXPECT_EQ(ClassifyRedlockUnlock(Transport(RedisCallError::kInDoubt), &why), Unlock::kInDoubt);
}

TEST(RedlockRulesTest, HoldsOnlyWithAQuorumAndPositiveValidity) {
  const std::vector<Set> three = {Set::kGranted, Set::kGranted, Set::kGranted, Set::kRefused,
                                  Set::kInDoubt};
  const std::vector<Set> two = {Set::kGranted, Set::kGranted, Set::kRefused, Set::kRefused,
                                Set::kInDoubt};
  EXPECT_TRUE(RedlockHolds(three, 1));
  EXPECT_FALSE(RedlockHolds(three, 0));
  EXPECT_FALSE(RedlockHolds(two, 900));
}

TEST(RedlockRulesTest, AFailedAcquireIsFailOnlyWhenNoQuorumMayHold) {
  const std::vector<Unlock> all_ran(5, Unlock::kDeleted);
  // A minority, all refused or unlocked: fail.
  EXPECT_EQ(RedlockFailedAcquireOutcome(
                {Set::kGranted, Set::kGranted, Set::kRefused, Set::kRefused, Set::kRefused},
                {Unlock::kDeleted, Unlock::kNotRun, Unlock::kNotOurs, Unlock::kNotOurs,
                 Unlock::kNotOurs}),
            Outcome::kFail);
  // A quorum too slow (validity <= 0), unlocked everywhere: fail.
  EXPECT_EQ(RedlockFailedAcquireOutcome(
                {Set::kGranted, Set::kGranted, Set::kGranted, Set::kRefused, Set::kRefused},
                all_ran),
            Outcome::kFail);
  // The same, but one granted master's unlock never ran: it still holds.
  EXPECT_EQ(RedlockFailedAcquireOutcome(
                {Set::kGranted, Set::kGranted, Set::kGranted, Set::kRefused, Set::kRefused},
                {Unlock::kDeleted, Unlock::kDeleted, Unlock::kNotRun, Unlock::kNotOurs,
                 Unlock::kNotOurs}),
            Outcome::kFail);
  EXPECT_EQ(RedlockFailedAcquireOutcome(
                {Set::kGranted, Set::kGranted, Set::kGranted, Set::kRefused, Set::kRefused},
                {Unlock::kInDoubt, Unlock::kInDoubt, Unlock::kNotRun, Unlock::kNotOurs,
                 Unlock::kNotOurs}),
            Outcome::kUnknown);
  // Two granted and unlocked, one timed out: its late SET may land after
  // the unlock, but one master is no quorum.
  EXPECT_EQ(RedlockFailedAcquireOutcome(
                {Set::kGranted, Set::kGranted, Set::kInDoubt, Set::kRefused, Set::kRefused},
                all_ran),
            Outcome::kFail);
  // The same with the two unlocks in doubt: three masters may hold.
  EXPECT_EQ(RedlockFailedAcquireOutcome(
                {Set::kGranted, Set::kGranted, Set::kInDoubt, Set::kRefused, Set::kRefused},
                {Unlock::kInDoubt, Unlock::kInDoubt, Unlock::kInDoubt, Unlock::kNotOurs,
                 Unlock::kNotOurs}),
            Outcome::kUnknown);
  // One granted, one timed out: no quorum whatever happened.
  EXPECT_EQ(RedlockFailedAcquireOutcome(
                {Set::kGranted, Set::kInDoubt, Set::kRefused, Set::kRefused, Set::kRefused},
                {Unlock::kInDoubt, Unlock::kInDoubt, Unlock::kNotOurs, Unlock::kNotOurs,
                 Unlock::kNotOurs}),
            Outcome::kFail);
}

TEST(RedlockRulesTest, ReleaseIsOkOnAQuorumAndFailWhenNothingRanOrWasOurs) {
  EXPECT_EQ(RedlockReleaseOutcome({Unlock::kDeleted, Unlock::kDeleted, Unlock::kDeleted,
                                   Unlock::kInDoubt, Unlock::kNotRun}),
            Outcome::kOk);
  EXPECT_EQ(RedlockReleaseOutcome({Unlock::kNotOurs, Unlock::kNotOurs, Unlock::kNotRun,
                                   Unlock::kNotOurs, Unlock::kNotOurs}),
            Outcome::kFail);
  EXPECT_EQ(RedlockReleaseOutcome({Unlock::kDeleted, Unlock::kDeleted, Unlock::kNotOurs,
                                   Unlock::kNotOurs, Unlock::kNotOurs}),
            Outcome::kUnknown);
  EXPECT_EQ(RedlockReleaseOutcome({Unlock::kNotOurs, Unlock::kInDoubt, Unlock::kNotOurs,
                                   Unlock::kNotOurs, Unlock::kNotOurs}),
            Outcome::kUnknown);
}

// Five fake masters; `grants[i]` says whether master i answers SET with OK.
class RedlockClientFakeTest : public ::testing::Test {
 protected:
  void StartMasters(std::vector<bool> grants) {
    for (size_t i = 0; i < grants.size(); ++i) {
      const bool grant = grants[i];
      servers_.push_back(std::make_unique<FakeRedisServer>(
          ioc_.get_executor(), [grant](const FakeRedisServer::Command& c) {
            if (c[0] == "SET") return FakeRedisServer::Action{grant ? "+OK\r\n" : "$-1\r\n"};
            if (c[0] == "EVALSHA") return FakeRedisServer::Action{grant ? ":1\r\n" : ":0\r\n"};
            if (c[0] == "PING") return FakeRedisServer::Action{"+PONG\r\n"};
            return FakeRedisServer::Action{"+OK\r\n"};
          }));
    }
  }
  RedlockClientOptions Options() {
    RedlockClientOptions o;
    for (size_t i = 0; i < servers_.size(); ++i) {
      o.masters.push_back({"n" + std::to_string(i + 1), {"127.0.0.1", servers_[i]->port(), "pw"}});
    }
    o.node_timeout = milliseconds(2000);  // no timing in unit tests: replies are immediate
    return o;
  }
  void StopMasters() {
    for (auto& s : servers_) s->Stop();
  }
  // The commands named `name` master i received.
  std::vector<FakeRedisServer::Command> CommandsOf(size_t i, const std::string& name) {
    std::vector<FakeRedisServer::Command> out;
    for (const auto& c : servers_[i]->commands()) {
      if (c[0] == name) out.push_back(c);
    }
    return out;
  }

  asio::io_context ioc_;
  std::vector<std::unique_ptr<FakeRedisServer>> servers_;
};

TEST_F(RedlockClientFakeTest, AQuorumHoldsWithOneTokenOnEveryMasterAndNamesTheGrantors) {
  StartMasters({true, false, true, true, false});
  RedlockClient client(ioc_.get_executor(), Options(), 7);
  AcquireResult got;
  ReleaseResult released;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    got = co_await client.Acquire("lock-0", milliseconds(1000));
    released = co_await client.Release("lock-0", got.token);
    StopMasters();
  });
  ASSERT_EQ(got.outcome, Outcome::kOk) << got.error;
  EXPECT_EQ(got.validity_ms, 1000 - got.detail["elapsed_ms"].get<int64_t>() - 12);
  EXPECT_EQ(got.detail["granted"], (nlohmann::json{"n1", "n3", "n4"}));
  EXPECT_EQ(got.detail["in_doubt"], nlohmann::json::array());
  for (size_t i = 0; i < servers_.size(); ++i) {
    const auto sets = CommandsOf(i, "SET");
    ASSERT_EQ(sets.size(), 1u) << "master " << i;
    EXPECT_EQ(sets[0], (FakeRedisServer::Command{"SET", "lock-0", got.token, "NX", "PX", "1000"}));
    EXPECT_EQ(CommandsOf(i, "EVALSHA").size(), 1u) << "a release goes to every master";
  }
  EXPECT_EQ(released.outcome, Outcome::kOk) << released.error;
}

TEST_F(RedlockClientFakeTest, ClientsSharingConnectionsUseOneSocketPerMasterAndCloseAlone) {
  StartMasters({true, true, true, true, true});
  RedlockClientOptions o = Options();
  std::vector<std::shared_ptr<RedisConnection>> shared;
  for (auto& m : o.masters) {
    shared.push_back(std::make_shared<RedisConnection>(ioc_.get_executor(),
                                                       RedisConnectionOptions{m.endpoint}));
    m.shared_connection = shared.back();
  }
  RedlockClient first(ioc_.get_executor(), o, 7);
  RedlockClient second(ioc_.get_executor(), o, 8);
  AcquireResult a, b, after_close, still;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    a = co_await first.Acquire("lock-a", milliseconds(1000));
    b = co_await second.Acquire("lock-b", milliseconds(1000));
    first.Close();
    after_close = co_await first.Acquire("lock-a", milliseconds(1000));
    still = co_await second.Acquire("lock-c", milliseconds(1000));
    for (auto& c : shared) c->Close();
    StopMasters();
  });
  EXPECT_EQ(a.outcome, Outcome::kOk) << a.error;
  EXPECT_EQ(b.outcome, Outcome::kOk) << b.error;
  EXPECT_EQ(after_close.outcome, Outcome::kFail);
  EXPECT_EQ(after_close.error, "client closed");
  EXPECT_EQ(still.outcome, Outcome::kOk) << "a client's Close leaves shared connections open";
  for (size_t i = 0; i < servers_.size(); ++i) {
    EXPECT_EQ(servers_[i]->connections(), 1) << "master " << i;
    EXPECT_EQ(CommandsOf(i, "SET").size(), 3u) << "master " << i;
  }
}

TEST_F(RedlockClientFakeTest, AMinorityFailsAndIsUnlockedOnEveryMaster) {
  StartMasters({true, false, false, true, false});
  RedlockClient client(ioc_.get_executor(), Options(), 7);
  AcquireResult got;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    got = co_await client.Acquire("lock-0", milliseconds(1000));
    StopMasters();
  });
  EXPECT_EQ(got.outcome, Outcome::kFail);
  EXPECT_NE(got.error.find("granted by 2 of 5 masters (quorum 3)"), std::string::npos)
      << got.error;
  EXPECT_EQ(got.detail["granted"], (nlohmann::json{"n1", "n4"}));
  for (size_t i = 0; i < servers_.size(); ++i) {
    EXPECT_EQ(CommandsOf(i, "EVALSHA").size(), 1u) << "master " << i;
  }
}

TEST_F(RedlockClientFakeTest, SequentialAndNoDriftChangeOnlyHowItIsDone) {
  StartMasters({true, true, true, true, true});
  RedlockClientOptions o = Options();
  o.sequential = true;
  o.no_drift = true;
  RedlockClient client(ioc_.get_executor(), o, 7);
  AcquireResult got;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    got = co_await client.Acquire("lock-0", milliseconds(1000));
    StopMasters();
  });
  ASSERT_EQ(got.outcome, Outcome::kOk) << got.error;
  EXPECT_EQ(got.validity_ms, 1000 - got.detail["elapsed_ms"].get<int64_t>())
      << "no drift subtracted";
  EXPECT_EQ(got.detail["granted"].size(), 5u);
}

// The client's own points record the keys they were passed on, by point.
ClientFaultPointHook Recording(std::vector<std::string>& stalled) {
  return [&stalled](ClientFaultPoint point,
                    const std::string& key) -> asio::awaitable<ClientFaultEffect> {
    stalled.push_back(std::string(ClientFaultPointName(point)) + " " + key);
    co_return ClientFaultEffect{};
  };
}

TEST_F(RedlockClientFakeTest, TheInFlightPointDoesNotRunForARefusedAcquire) {
  StartMasters({true, false, false, true, false});
  RedlockClient client(ioc_.get_executor(), Options(), 7);
  std::vector<std::string> stalled;
  client.SetFaultPointHook(Recording(stalled));
  AcquireResult got;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    got = co_await client.Acquire("lock-0", milliseconds(1000));
    StopMasters();
  });
  EXPECT_EQ(got.outcome, Outcome::kFail);
  EXPECT_TRUE(stalled.empty()) << "a refused acquire has nothing in flight to judge";
}

TEST_F(RedlockClientFakeTest, TheInFlightPointRunsOnceAQuorumGranted) {
  StartMasters({true, true, true, false, false});
  RedlockClient client(ioc_.get_executor(), Options(), 8);
  std::vector<std::string> stalled;
  client.SetFaultPointHook(Recording(stalled));
  AcquireResult got;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    got = co_await client.Acquire("lock-1", milliseconds(1000));
    StopMasters();
  });
  EXPECT_EQ(got.outcome, Outcome::kOk) << got.error;
  EXPECT_EQ(stalled, std::vector<std::string>{"acquire-in-flight lock-1"});
  EXPECT_EQ(client.OwnFaultPoints(), ClientFaultPoints{ClientFaultPoint::kAcquireInFlight});
}

// A stall between the granted replies and the clock reading counts as
// elapsed time: the compliant client rejects the acquire and unlocks on
// every master.
TEST_F(RedlockClientFakeTest, AStallInFlightLongerThanTheLeaseIsRejectedAndUnlocked) {
  StartMasters({true, true, true, true, true});
  RedlockClient client(ioc_.get_executor(), Options(), 7);
  client.SetFaultPointHook(
      [this](ClientFaultPoint, const std::string&) -> asio::awaitable<ClientFaultEffect> {
        asio::steady_timer timer(ioc_, milliseconds(40));
        co_await timer.async_wait(asio::use_awaitable);
        co_return ClientFaultEffect{};
      });
  AcquireResult got;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    got = co_await client.Acquire("lock-0", milliseconds(20));
    StopMasters();
  });
  EXPECT_EQ(got.outcome, Outcome::kFail);
  EXPECT_GE(got.detail["elapsed_ms"].get<int64_t>(), 40);
  EXPECT_NE(got.error.find("but validity"), std::string::npos) << got.error;
  for (size_t i = 0; i < servers_.size(); ++i) {
    EXPECT_EQ(CommandsOf(i, "EVALSHA").size(), 1u) << "master " << i;
  }
}

// The wall-clock client reads the step the point returns (its clock moved
// back while it was stopped); the monotonic client does not.
TEST_F(RedlockClientFakeTest, AWallClockStepBackInFlightFoolsOnlyTheWallClockClient) {
  StartMasters({true, true, true, true, true});
  auto step_back = [](ClientFaultPoint,
                      const std::string&) -> asio::awaitable<ClientFaultEffect> {
    co_return ClientFaultEffect{false, milliseconds(-60'000)};
  };
  RedlockClient monotonic(ioc_.get_executor(), Options(), 7);
  monotonic.SetFaultPointHook(step_back);
  RedlockClientOptions o = Options();
  o.wall_clock = true;
  RedlockClient wall(ioc_.get_executor(), o, 8);
  wall.SetFaultPointHook(step_back);
  AcquireResult a, b, again;
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    a = co_await monotonic.Acquire("lock-0", milliseconds(1000));
    b = co_await wall.Acquire("lock-1", milliseconds(1000));
    wall.SetFaultPointHook(nullptr);
    again = co_await wall.Acquire("lock-2", milliseconds(1000));
    StopMasters();
  });
  ASSERT_EQ(a.outcome, Outcome::kOk) << a.error;
  EXPECT_GE(a.detail["elapsed_ms"].get<int64_t>(), 0);
  EXPECT_LE(a.validity_ms, 1000 - 12);
  ASSERT_EQ(b.outcome, Outcome::kOk) << b.error;
  EXPECT_LE(b.detail["elapsed_ms"].get<int64_t>(), -59'000) << "the step counts as time gone back";
  EXPECT_GT(b.validity_ms, 1000) << "validity longer than the lease itself";
  ASSERT_EQ(again.outcome, Outcome::kOk) << again.error;
  EXPECT_GE(again.detail["elapsed_ms"].get<int64_t>(), 0) << "a step stays, it does not recur";
}

TEST_F(RedlockClientFakeTest, ConnectNeedsAQuorumOfMasters) {
  StartMasters({true, true, true});
  RedlockClientOptions o = Options();
  o.masters.push_back({"n4", {"127.0.0.1", 1, "pw"}});  // nothing listens on port 1
  o.masters.push_back({"n5", {"127.0.0.1", 1, "pw"}});
  RedlockClient fine(ioc_.get_executor(), o, 1);
  o.masters.erase(o.masters.begin());
  RedlockClient short_of_one(ioc_.get_executor(), o, 2);
  Status a = OkStatus(), b = OkStatus();
  testing::RunCoroutine(ioc_, [&]() -> asio::awaitable<void> {
    a = co_await fine.Connect();
    b = co_await short_of_one.Connect();
    StopMasters();
  });
  EXPECT_TRUE(a.ok()) << a.error();
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().find("only 2 of 4 masters answer (quorum 3)"), std::string::npos)
      << b.error();
}

}  // namespace
}  // namespace locksmith
