#include "nemesis/client_pause_effect.h"

#include <gtest/gtest.h>

#include <string>

namespace locksmith {
namespace {

constexpr int64_t kMs = 1'000'000;

// A history written op by op, each at the millisecond it names.
class Ops {
 public:
  Ops& Add(int64_t ms, int64_t process, OpType type, std::string f, nlohmann::json value,
           std::string key = "lock-0", std::string error = "") {
    history_.push_back(Op{.index = static_cast<int64_t>(history_.size()), .time = ms * kMs,
                          .process = process, .type = type, .f = std::move(f),
                          .key = process == kNemesisProcess ? "" : std::move(key),
                          .value = std::move(value), .error = std::move(error)});
    return *this;
  }
  // A client-pause op pair: its invoke, then its completion (index returned
  // by begin_done()) with `value` and `error`.
  Ops& Pause(int64_t invoked_ms, int64_t done_ms, nlohmann::json value, std::string error = "") {
    Add(invoked_ms, kNemesisProcess, OpType::kInvoke, "client-pause", {{"ms", value.value("ms", 0)}});
    begin_done_ = history_.size();
    return Add(done_ms, kNemesisProcess, OpType::kInfo, "client-pause", std::move(value), "",
               std::move(error));
  }
  size_t begin_done() const { return begin_done_; }
  const History& history() const { return history_; }

 private:
  History history_;
  size_t begin_done_ = 0;
};

// Process 3 acquires lock-0 with a `lease_ms` lease at 10 ms, a client
// pause of `pause_ms` hits it at 12 ms, its stall ends after `stalled_ms`
// and it asks to release right after.
Ops StalledHold(int64_t lease_ms, int64_t pause_ms, int64_t stalled_ms) {
  Ops ops;
  ops.Add(0, 3, OpType::kInvoke, "acquire", {{"lease_ms", lease_ms}})
      .Add(10, 3, OpType::kOk, "acquire", {{"token", "t"}, {"validity_ms", lease_ms}})
      .Pause(11, 12, {{"process", 3}, {"key", "lock-0"}, {"ms", pause_ms}})
      .Add(12, 3, OpType::kInvoke, "pause", {{"ms", pause_ms}})
      .Add(12 + stalled_ms, 3, OpType::kOk, "pause", {{"ms", pause_ms}, {"stalled_ms", stalled_ms}})
      .Add(12 + stalled_ms, 3, OpType::kInvoke, "release", {{"token", "t"}})
      .Add(14 + stalled_ms, 3, OpType::kOk, "release", {{"token", "t"}});
  return ops;
}

std::optional<FaultConfirmed> Effect(const Ops& ops) {
  return ClientPauseEffect(ops.history(), ops.begin_done());
}

const FaultConfirmed kWithinLease{true, false};
const FaultConfirmed kPastLease{true, true};
const FaultConfirmed kNoEffect{false, std::nullopt};

// The safe case: a holder stalled for the whole pause, well within its lease.
TEST(ClientPauseEffectTest, AStallWithinTheLeaseTookEffect) {
  EXPECT_EQ(Effect(StalledHold(3000, 500, 500)), kWithinLease);
}

TEST(ClientPauseEffectTest, AStallPastTheLeaseTookEffectAndSaysSo) {
  EXPECT_EQ(Effect(StalledHold(1000, 2500, 2500)), kPastLease);
  // The lease ends 1010 ms in; the stall, 12 + 1000 ms in.
  EXPECT_EQ(Effect(StalledHold(1000, 1000, 1000)), kPastLease);
}

// The run's end cut the stall short: the worker went on before the pause's
// length, so the pause did not take effect, whatever the lease.
TEST(ClientPauseEffectTest, AWorkerThatWentOnBeforeThePausesLengthWasNotStalled) {
  EXPECT_EQ(Effect(StalledHold(3000, 500, 499)), kNoEffect);
  EXPECT_EQ(Effect(StalledHold(100, 2000, 300)), kNoEffect);
}

// A watchdog renewing the lease while its holder stalls keeps the stall
// within the lease: the renewals count up to the stall's end.
TEST(ClientPauseEffectTest, RenewalsDuringTheStallKeepItWithinTheLease) {
  Ops ops;
  ops.Add(0, 3, OpType::kInvoke, "acquire", {{"lease_ms", 1000}})
      .Add(10, 3, OpType::kOk, "acquire", {{"token", "t"}, {"validity_ms", 1000}})
      .Pause(11, 12, {{"process", 3}, {"key", "lock-0"}, {"ms", 2000}})
      .Add(12, 3, OpType::kInvoke, "pause", {{"ms", 2000}});
  for (int64_t ms = 400; ms < 2000; ms += 400) {
    ops.Add(ms, 3, OpType::kOk, "renew", {{"token", "t"}, {"validity_ms", 1000}});
  }
  ops.Add(2012, 3, OpType::kOk, "pause", {{"ms", 2000}, {"stalled_ms", 2000}})
      .Add(2013, 3, OpType::kInvoke, "release", {{"token", "t"}});
  EXPECT_EQ(Effect(ops), kWithinLease);
}

// A session's lock (no lease of its own) is past its validity when its
// lock-lost notice says the session was cut off before the stall ended,
// even when the notice came after it.
TEST(ClientPauseEffectTest, ASessionCutOffDuringTheStallIsPastTheLease) {
  auto session_hold = [](int64_t cut_off_ms) {
    Ops ops;
    ops.Add(0, 3, OpType::kInvoke, "acquire", nlohmann::json::object())
        .Add(10, 3, OpType::kOk, "acquire", {{"token", "t"}, {"session_lease", true}})
        .Pause(11, 12, {{"process", 3}, {"key", "lock-0"}, {"ms", 3000}})
        .Add(12, 3, OpType::kInvoke, "pause", {{"ms", 3000}})
        .Add(3012, 3, OpType::kOk, "pause", {{"ms", 3000}, {"stalled_ms", 3000}})
        .Add(3013, 3, OpType::kInvoke, "release", {{"token", "t"}})
        .Add(3020, 3, OpType::kOk, "lock-lost", {{"token", "t"}, {"cut_off_ms", cut_off_ms}})
        .Add(3021, 3, OpType::kFail, "release", {{"token", "t"}});
    return ops;
  };
  EXPECT_EQ(Effect(session_hold(2000)), kPastLease);  // cut off 1020 ms in
  EXPECT_EQ(Effect(session_hold(1)), kWithinLease);   // 3019 ms in, after the stall
  // A lock that records no lease and lost nothing is never past it.
  Ops no_lease;
  no_lease.Add(0, 3, OpType::kInvoke, "acquire", nlohmann::json::object())
      .Add(10, 3, OpType::kOk, "acquire", {{"token", "t"}})
      .Pause(11, 12, {{"process", 3}, {"key", "lock-0"}, {"ms", 3000}})
      .Add(12, 3, OpType::kInvoke, "pause", {{"ms", 3000}})
      .Add(3012, 3, OpType::kOk, "pause", {{"ms", 3000}})
      .Add(3013, 3, OpType::kInvoke, "release", {{"token", "t"}});
  EXPECT_EQ(Effect(no_lease), kWithinLease);
}

// The stall must hit the worker where the pause aims: inside its hold.
// Ops on other keys (a resource's reads and writes) and a re-entry nested
// in the hold leave it inside; a released or refused lock does not.
TEST(ClientPauseEffectTest, OnlyAStallInsideTheHoldTakesEffect) {
  auto hold_then = [](auto&& between) {
    Ops ops;
    ops.Add(0, 3, OpType::kInvoke, "acquire", {{"lease_ms", 5000}})
        .Add(10, 3, OpType::kOk, "acquire", {{"token", "t"}, {"validity_ms", 5000}});
    between(ops);
    ops.Pause(30, 31, {{"process", 3}, {"key", "lock-0"}, {"ms", 500}})
        .Add(31, 3, OpType::kInvoke, "pause", {{"ms", 500}})
        .Add(531, 3, OpType::kOk, "pause", {{"ms", 500}})
        .Add(532, 3, OpType::kInvoke, "release", {{"token", "t"}});
    return ops;
  };
  EXPECT_EQ(Effect(hold_then([](Ops& ops) {
              ops.Add(12, 3, OpType::kInvoke, "read", nullptr, "stock")
                  .Add(13, 3, OpType::kOk, "read", {{"value", 4}}, "stock")
                  .Add(14, 3, OpType::kInvoke, "acquire", {{"reentry", true}})
                  .Add(15, 3, OpType::kOk, "acquire", {{"validity_ms", 5000}})
                  .Add(16, 3, OpType::kInvoke, "release", {{"reentry", true}})
                  .Add(17, 3, OpType::kOk, "release", nullptr);
            })),
            kWithinLease);
  EXPECT_EQ(Effect(hold_then([](Ops& ops) {
              ops.Add(12, 3, OpType::kInvoke, "release", {{"token", "t"}})
                  .Add(13, 3, OpType::kOk, "release", nullptr)
                  .Add(14, 3, OpType::kInvoke, "acquire", {{"lease_ms", 5000}})
                  .Add(15, 3, OpType::kFail, "acquire", nullptr, "lock-0", "held");
            })),
            kNoEffect);
  EXPECT_EQ(Effect(hold_then([](Ops& ops) {
              ops.Add(12, 3, OpType::kInvoke, "release", {{"token", "t"}})
                  .Add(13, 3, OpType::kOk, "release", nullptr);
            })),
            kNoEffect);
}

TEST(ClientPauseEffectTest, WhatTheHistoryCannotTell) {
  Ops none;
  none.Add(0, 3, OpType::kInvoke, "acquire", {{"lease_ms", 1000}})
      .Pause(1, 5001, {{"ms", 500}}, "no client held a lock within 5000 ms");
  EXPECT_EQ(Effect(none), kNoEffect) << "no worker took the stall";
  Ops unrecorded;
  unrecorded.Pause(1, 2, {{"process", 3}, {"key", "lock-0"}, {"ms", 500}});
  EXPECT_EQ(Effect(unrecorded), std::nullopt) << "no record of the stall";
  Ops cut = StalledHold(3000, 500, 500);
  History h = cut.history();
  h.resize(h.size() - 2);  // the history ends inside the stall
  EXPECT_EQ(ClientPauseEffect(h, cut.begin_done()), std::nullopt);
  EXPECT_EQ(ClientPauseEffect(h, h.size()), std::nullopt);
}

// In flight: the acquire's completion is the worker's next op; the stall
// is past the lease when it ended after the lease the acquire asked for,
// counted from the acquire's invoke.
TEST(ClientPauseEffectTest, AnInFlightStallTakesEffectInsideAnAcquire) {
  auto in_flight = [](int64_t stalled_ms, int64_t lease_ms) {
    Ops ops;
    ops.Add(0, 2, OpType::kInvoke, "acquire", {{"lease_ms", lease_ms}})
        .Pause(1, 5, {{"process", 2}, {"key", "lock-0"}, {"ms", 1500}, {"at", "in-flight"}})
        .Add(5, 2, OpType::kOk, "pause", {{"at", "in-flight"}, {"phase", "begin"}, {"ms", 1500}})
        .Add(5 + stalled_ms, 2, OpType::kOk, "pause",
             {{"at", "in-flight"}, {"phase", "end"}, {"ms", 1500}, {"stalled_ms", stalled_ms}})
        .Add(6 + stalled_ms, 2, OpType::kOk, "acquire", {{"token", "t"}, {"validity_ms", 1}});
    return ops;
  };
  EXPECT_EQ(Effect(in_flight(1500, 10'000)), kWithinLease);
  EXPECT_EQ(Effect(in_flight(1500, 1000)), kPastLease);
  EXPECT_EQ(Effect(in_flight(1500, 1505)), kWithinLease);  // ends 1505 ms in, with the lease
  EXPECT_EQ(Effect(in_flight(1000, 500)), kNoEffect) << "cut short";
  // A begin event with no acquire in flight: not where the pause aims.
  Ops idle;
  idle.Add(0, 2, OpType::kInvoke, "acquire", {{"lease_ms", 1000}})
      .Add(1, 2, OpType::kOk, "acquire", {{"token", "t"}, {"validity_ms", 1000}})
      .Pause(2, 5, {{"process", 2}, {"key", "lock-0"}, {"ms", 100}, {"at", "in-flight"}})
      .Add(5, 2, OpType::kOk, "pause", {{"at", "in-flight"}, {"phase", "begin"}, {"ms", 100}})
      .Add(200, 2, OpType::kInvoke, "release", {{"token", "t"}});
  EXPECT_EQ(Effect(idle), kNoEffect);
}

// Release in flight: the release's completion is the worker's next op; a
// stall there is never past the lease (the hold ended at the release's
// invoke), and a begin event with an acquire in flight is not where it aims.
TEST(ClientPauseEffectTest, AReleaseInFlightStallTakesEffectInsideARelease) {
  auto in_release = [](int64_t stalled_ms, const char* in_flight_f) {
    const nlohmann::json at = {{"at", "release-in-flight"}};
    Ops ops;
    ops.Add(0, 2, OpType::kInvoke, "acquire", {{"lease_ms", 100}})
        .Add(1, 2, OpType::kOk, "acquire", {{"token", "t"}, {"validity_ms", 100}})
        .Add(2, 2, OpType::kInvoke, in_flight_f, {{"token", "t"}})
        .Pause(1, 5, {{"process", 2}, {"key", "lock-0"}, {"ms", 600}, {"at", "release-in-flight"}})
        .Add(5, 2, OpType::kOk, "pause", {{"at", "release-in-flight"}, {"phase", "begin"}, {"ms", 600}})
        .Add(5 + stalled_ms, 2, OpType::kOk, "pause",
             {{"at", "release-in-flight"}, {"phase", "end"}, {"ms", 600}, {"stalled_ms", stalled_ms}})
        .Add(6 + stalled_ms, 2, OpType::kOk, in_flight_f, {{"attempts", 2}});
    return ops;
  };
  EXPECT_EQ(Effect(in_release(600, "release")), kWithinLease);
  EXPECT_EQ(Effect(in_release(300, "release")), kNoEffect) << "cut short";
  EXPECT_EQ(Effect(in_release(600, "acquire")), kNoEffect) << "an acquire, not a release";
}

}  // namespace
}  // namespace locksmith
