#include "backends/client_faults.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <vector>

#include "backends/client_crashes.h"
#include "backends/client_pauses.h"
#include "backends/testing/fake_lock_service.h"
#include "backends/testing/run_coroutine.h"

namespace locksmith {
namespace {

using testing::FakeLockClient;
using testing::FakeLockState;
using testing::RunCoroutine;

// A worker as the families see it, keeping what they recorded.
class RecordingTarget : public ClientFaultTarget {
 public:
  explicit RecordingTarget(LockClient& client) : client_(client) {}
  int64_t process() const override { return 4; }
  LockClient& client() override { return client_; }
  void Invoke(const std::string& f, const std::string&, nlohmann::json) override {
    ops.push_back(f + ":invoke");
  }
  void Complete(Outcome, nlohmann::json, const std::string&) override { ops.push_back("ok"); }
  void Note(const std::string& f, const std::string&, nlohmann::json value) override {
    ops.push_back(f + ":" + value.value("phase", std::string()));
  }
  boost::asio::awaitable<void> Sleep(std::chrono::milliseconds wait) override {
    slept += wait;
    co_return;
  }
  std::chrono::steady_clock::time_point Now() const override { return {}; }

  std::vector<std::string> ops;
  std::chrono::milliseconds slept{0};

 private:
  LockClient& client_;
};

// A family that steps the clock at every point it is asked at.
class SteppingFamily : public ClientFaultFamily {
 public:
  boost::asio::awaitable<ClientFaultEffect> At(ClientFaultPoint, ClientFaultTarget&,
                                               const std::string&) override {
    ++asked;
    co_return ClientFaultEffect{false, std::chrono::milliseconds(5)};
  }
  int asked = 0;
};

struct Fixture {
  boost::asio::io_context io;
  FakeLockState state;
  FakeLockClient client{state, 1};
  RecordingTarget target{client};
  ClientFaults faults;

  ClientFaultEffect At(ClientFaultPoint point, const std::string& key = "lock-0") {
    ClientFaultEffect effect;
    RunCoroutine(io, [&]() -> boost::asio::awaitable<void> {
      effect = co_await faults.At(point, target, key);
    });
    return effect;
  }
};

TEST(ClientFaultsTest, APauseFamilyStallsAHolderAsAnOpPairAndAnAcquireInFlightAsLoneOps) {
  Fixture f;
  ClientPauses& pauses = f.faults.Add(std::make_shared<ClientPauses>());
  pauses.Request(std::chrono::milliseconds(20));
  EXPECT_TRUE(f.At(ClientFaultPoint::kBeforeAcquire).clock_step.count() == 0);
  EXPECT_TRUE(f.target.ops.empty()) << "a holder stall waits for a holder";
  f.At(ClientFaultPoint::kBeforeRelease);
  EXPECT_EQ(f.target.ops, (std::vector<std::string>{"pause:invoke", "ok"}));
  EXPECT_EQ(f.target.slept, std::chrono::milliseconds(20));

  f.target.ops.clear();
  pauses.RequestAt(PausePoint::kInFlight,
                   {std::chrono::milliseconds(10), std::chrono::milliseconds(-7)});
  EXPECT_EQ(f.At(ClientFaultPoint::kAcquireInFlight).clock_step, std::chrono::milliseconds(-7));
  EXPECT_EQ(f.target.ops, (std::vector<std::string>{"pause:begin", "pause:end"}));
  EXPECT_TRUE(pauses.AwaitTaken(std::chrono::milliseconds(0)).has_value());
}

TEST(ClientFaultsTest, ACrashFamilyKillsTheWorkerOnlyAtTheAnsweredAcquire) {
  Fixture f;
  ClientCrashes& crashes = f.faults.Add(std::make_shared<ClientCrashes>());
  SteppingFamily& after = f.faults.Add(std::make_shared<SteppingFamily>());
  RunCoroutine(f.io, [&]() -> boost::asio::awaitable<void> {
    EXPECT_TRUE((co_await f.client.Connect()).ok());
  });
  crashes.Request("lock-0", 4);
  EXPECT_FALSE(f.At(ClientFaultPoint::kBeforeAcquire).crashed);
  EXPECT_FALSE(f.At(ClientFaultPoint::kCriticalSection).crashed);
  const int asked = after.asked;
  EXPECT_TRUE(f.At(ClientFaultPoint::kAcquireAnswered).crashed);
  EXPECT_EQ(after.asked, asked) << "no family acts on a worker that died";
  EXPECT_EQ(f.state.open_clients, 1) << "whoever passed the point makes the crash, not the family";
  EXPECT_FALSE(f.At(ClientFaultPoint::kAcquireAnswered).crashed) << "taken once";
}

TEST(ClientFaultsTest, EveryFamilyIsAskedAndClockStepsAddUp) {
  Fixture f;
  EXPECT_TRUE(f.faults.empty());
  f.faults.Add(std::make_shared<SteppingFamily>());
  f.faults.Add(std::make_shared<SteppingFamily>());
  EXPECT_FALSE(f.faults.empty());
  EXPECT_EQ(f.At(ClientFaultPoint::kAcquireInFlight).clock_step, std::chrono::milliseconds(10));
  EXPECT_STREQ(ClientFaultPointName(ClientFaultPoint::kReleaseInFlight), "release-in-flight");
  EXPECT_TRUE(InsideAnOp(ClientFaultPoint::kBeforeAcquire));
  EXPECT_FALSE(InsideAnOp(ClientFaultPoint::kCriticalSection));
}

}  // namespace
}  // namespace locksmith
