// KillNemesis: "kill" SIGKILLs a node's server, "restart" starts it again (what
// it remembers depends on the backend's persistence). Teardown starts every
// node it killed that is still down and returns the starts that failed
// (those nodes stay on its list). Used from the nemesis thread;
// Teardown afterwards from the run thread; not otherwise thread-safe.
#pragma once

#include <set>
#include <string>

#include "backends/lock_service.h"
#include "checker/option_set.h"
#include "nemesis/nemesis.h"
#include "nemesis/schedule.h"

namespace locksmith {

// The kill family's options (config key "restart_delay_ms").
struct KillOptions {
  int64_t restart_delay_ms = 100;  // downtime before "start"

  void Declare(OptionSet& set);
};

// A kill on the node at the start, and its start again after the restart
// delay, but before the next cycle.
CycleOps KillCycle(int64_t restart_delay_ms);

// The registry's hooks (nemesis_registry.cc): from OptionsOf<KillOptions>.
// An error when the backend cannot kill nodes.
Result<std::unique_ptr<Nemesis>> MakeKillNemesis(const ModuleOptions& options,
                                                 LockService& service);
CycleOps KillCycleOf(const ModuleOptions& options);

class KillNemesis : public Nemesis {
 public:
  explicit KillNemesis(Killable& service) : service_(service) {}
  std::vector<std::string> Faults() const override { return {"kill", "restart"}; }
  FaultResult Invoke(const FaultOp& op) override;
  std::vector<HealFailure> Teardown() override;

 private:
  Killable& service_;
  std::set<std::string> down_;
};

}  // namespace locksmith
