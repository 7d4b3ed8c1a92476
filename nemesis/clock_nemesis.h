// ClockNemesis: moves nodes' wall clocks through the clock shim of their
// hosts (ClockController) and checks from outside that they moved.
//   "clock-bump"   {"delta_ms": D}                       the clock jumps by D
//   "clock-strobe" {"delta_ms": D, "period_ms": P, "duration_ms": T}
//                  a square wave: +D for half of each period, -D for the
//                  other half, for T; then back to the clock before it
//   "clock-drift"  {"rate": R}  from now on the clock runs R times as fast
//   "clock-reset"  {}           the real clock again (removes the file)
// Every op may name "node" or "nodes"; without, it applies to every node.
// Ops compose (a bump during a drift keeps the drift). After writing, the
// nemesis reads each node's clock (HasClocks::WallClockNs: Redis TIME)
// until it shows the offset the parameters predict, and the op's value says
// per node what was set and what was observed ("offset_ms",
// "observed_offset_ms", "rtt_ms"). A node whose clock does not show it within
// the observe timeout fails the op (the shim is not loaded, the node is
// down). Several nodes on one host share its clock.
// Teardown removes every control file it wrote and reports each it could not.
// Used from the nemesis thread, Teardown afterwards from the run thread; not
// otherwise thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/lock_service.h"
#include "base/option_set.h"
#include "nemesis/clock_controller.h"
#include "nemesis/nemesis.h"

namespace locksmith {

// What a clock option or op may ask of a clock, server's or client's: a step
// of at most ten years either way (larger jumps only overflow someone's
// arithmetic), a period or hold of at most a day.
inline constexpr int64_t kMaxClockDeltaMs = int64_t{10} * 365 * 24 * 3600 * 1000;
inline constexpr int64_t kMaxClockPeriodMs = int64_t{24} * 3600 * 1000;

// The clock family's options: what a scheduled window does (see
// ClockWindow) and how the nemesis observes.
struct ClockOptions {
  std::string mode = "bump";  // bump | strobe | drift
  int64_t delta_ms = 60'000;  // bump size, strobe amplitude
  int64_t period_ms = 1'000;  // strobe period
  double rate = 2.0;          // drift rate
  int64_t hold_ms = 5'000;    // a window's fault lasts this long before the reset
  // How long an op waits for a node's clock to show the change.
  int64_t observe_timeout_ms = 2'000;

  void Declare(OptionSet& set);
};

std::vector<std::string> ClockModes();

// Why the clock nemesis cannot run on `service` (no HasClocks); empty when it
// can.
std::string ClocklessReason(LockService& service);

// The clock nemesis on `service`, over all its nodes. An error when the
// backend cannot show its clocks (no HasClocks) or a node's host does not
// have the shim installed (ClockController::Install before Start()).
Result<std::unique_ptr<Nemesis>> MakeClockNemesis(const ClockOptions& options,
                                                  LockService& service);

class ClockNemesis : public Nemesis {
 public:
  // The controller's wall clock, ns since the epoch (tests fake it).
  using WallClock = std::function<int64_t()>;

  ClockNemesis(HasClocks& clocks, std::vector<std::string> nodes,
               std::chrono::milliseconds observe_timeout, WallClock now = SystemWallClockNs);

  std::vector<std::string> Faults() const override {
    return {"clock-bump", "clock-strobe", "clock-drift", "clock-reset"};
  }
  FaultResult Invoke(const FaultOp& op) override;
  std::vector<HealFailure> Teardown() override;

  static int64_t SystemWallClockNs();

 private:
  struct Observation {
    bool confirmed = false;
    nlohmann::json value;  // offset_ms, observed_offset_ms, rtt_ms (or error)
  };

  Result<std::vector<std::string>> Targets(const nlohmann::json& value) const;
  // The controller of `node`'s host, made on first use.
  Result<ClockController*> ControllerOf(const std::string& node);
  // Polls the node's clock until it shows `controller`'s parameters.
  Observation Observe(const std::string& node, const ClockController& controller);

  HasClocks& clocks_;
  const std::vector<std::string> nodes_;
  const std::chrono::milliseconds observe_timeout_;
  const WallClock now_;
  std::map<std::string, std::unique_ptr<ClockController>> controllers_;  // by host name
};

}  // namespace locksmith
