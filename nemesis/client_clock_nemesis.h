// ClientClockNemesis: the client-clock family. Moves ONE external client
// program's wall clock (`--client exec:`, docs/exec-clients.md) through the
// clock shim the servers get (nemesis/clock_shim.cc), preloaded into every
// client program on its client host (Cluster::ClientHost):
//   "client-clock-bump"   {"client": I, "delta_ms": D}
//   "client-clock-strobe" {"client": I, "delta_ms": D, "period_ms": P, "duration_ms": T}
//   "client-clock-drift"  {"client": I, "rate": R}
//   "client-clock-reset"  {"client": I}
// with the clock family's meanings (nemesis/clock_nemesis.h); "client"
// defaults to the family's --client-clock-target. Each op reads the client
// host's clock back (`date` under the shim, on that host) until it shows the
// change: the op's "observed". The built-in clients live in the controller,
// whose clock the run never moves: the family refuses them (their seam is
// client-pause's clock_delta_ms, read by the --redlock-wall-clock client).
// Used from the nemesis thread, Teardown afterwards from the run thread; not
// otherwise thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/option_set.h"
#include "history/fault_names.h"
#include "nemesis/clock_nemesis.h"
#include "nemesis/fault_look.h"
#include "nemesis/nemesis_registry.h"
#include "nemesis/schedule.h"

namespace locksmith {

struct ClientClockOptions {
  ClockOptions clock;  // mode, delta, period, rate, hold, observe timeout
  int64_t target = 0;  // the client whose clock a scheduled window moves

  void Declare(OptionSet& set);
};

// The begin and end op of a client clock fault from `start_ms`, ended
// before `end_by_ms` (ClockWindow's, renamed, on the target client).
std::vector<ScheduledFault> ClientClockWindow(const ClientClockOptions& options,
                                              int64_t start_ms, int64_t end_by_ms);

// The registry's hooks (nemesis_registry.cc). Make installs the shim on
// every client's host (making the hosts), before any program starts.
Result<std::unique_ptr<Nemesis>> MakeClientClockNemesis(const ModuleOptions& options,
                                                        const NemesisContext& context);
std::string ClientClockUnfit(const ModuleOptions& options, const NemesisContext& context);
WindowOps ClientClockWindowOf(const ModuleOptions& options);
// The clock family's words, with the client's offset.
extern const FaultLook kClientClockLook;

class ClientClockNemesis : public Nemesis {
 public:
  // `clocks` reads the clients' clocks ("c<i>"); `target`: the default client.
  ClientClockNemesis(std::unique_ptr<HasClocks> clocks, int clients, int64_t target,
                     std::chrono::milliseconds observe_timeout,
                     ClockNemesis::WallClock now = ClockNemesis::SystemWallClockNs);

  std::vector<std::string> Faults() const override {
    return {kClientClockBump, kClientClockStrobe, kClientClockDrift, kClientClockReset};
  }
  FaultResult Invoke(const FaultOp& op) override;
  std::vector<HealFailure> Teardown() override { return clock_.Teardown(); }

 private:
  const std::unique_ptr<HasClocks> clocks_;
  const int clients_;
  const int64_t target_;
  ClockNemesis clock_;  // the clock family's, over the clients' hosts
};

}  // namespace locksmith
