// FailoverNemesis (family `failover`): takes the current master out until
// the service promotes another node, then heals. "failover" {"mode": "kill"
// | "pause" | "isolate"} asks the service who leads (HasPrimary; while none
// does, an election under way, it asks again until one does, up to
// `promote_wait`, and fails only then), SIGKILLs
// or SIGSTOPs that node, or cuts its host off the other hosts (isolate: the
// partition family's isolate shape, in a chain of its own; "clients" in the
// value keeps those clients on the old master's side), and waits (up to
// `promote_wait`) until the service names a new leader; its completion
// value names the old and the new master, how long the promotion took, and
// for isolate the grudge. "failover-heal" starts again (kill), resumes
// (pause) or reconnects (isolate) the old master -- the sentinels make it a
// replica of the new one -- and names both again. A failover whose
// promotion never came is still healed.
//
// Used from the nemesis thread; Teardown afterwards from the run thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "backends/lock_service.h"
#include "base/option_set.h"
#include "nemesis/nemesis_registry.h"
#include "nemesis/schedule.h"

namespace locksmith {

struct FailoverOptions {
  std::string mode = "kill";       // kill | pause | isolate: what is done to the master
  std::string clients = "none";    // isolate: the clients left on the old master's side
  int64_t failover_ms = 8000;      // fault to heal, at least until the promotion
  int64_t promote_wait_ms = 20000;  // how long the fault waits for a new master

  void Declare(OptionSet& set);
};

WindowOps FailoverWindow(const FailoverOptions& options);

// The registry's hooks: unfit (and an error to make) when the backend has no
// primary that another node takes over from (single Redis, Redlock's
// independent masters), or cannot kill / pause nodes as the mode asks.
Result<std::unique_ptr<Nemesis>> MakeFailoverNemesis(const ModuleOptions& options,
                                                     const NemesisContext& context);
std::string FailoverUnfit(const ModuleOptions& options, const NemesisContext& context);
WindowOps FailoverWindowOf(const ModuleOptions& options);
// How the reports show a failover (nemesis/fault_look.h): the old and the
// new master, how long the promotion took, and the mode.
extern const FaultLook kFailoverLook;

class FailoverNemesis : public Nemesis {
 public:
  // `killable` / `pausable` / `isolator` (a partition nemesis) may be null
  // when the service or hosts lack them (the mode that needs one then fails
  // its op).
  FailoverNemesis(HasPrimary& primary, Killable* killable, Pausable* pausable,
                  std::unique_ptr<Nemesis> isolator, std::chrono::milliseconds promote_wait,
                  std::chrono::milliseconds poll = std::chrono::milliseconds(100));

  std::vector<std::string> Faults() const override { return {"failover", "failover-heal"}; }
  FaultResult Invoke(const FaultOp& op) override;
  std::vector<HealFailure> Teardown() override;

 private:
  FaultResult Begin(const FaultOp& op);
  FaultResult Heal();
  // The master the service names, once it names one (up to promote_wait_);
  // `waited` says how long when it named none at first.
  Result<std::string> AwaitMaster(std::optional<std::chrono::milliseconds>* waited);

  HasPrimary& primary_;
  Killable* const killable_;
  Pausable* const pausable_;
  const std::unique_ptr<Nemesis> isolator_;
  const std::chrono::milliseconds promote_wait_;
  const std::chrono::milliseconds poll_;
  // The fault in force: the old master and what was done to it.
  std::optional<std::string> old_;
  std::string mode_;
};

}  // namespace locksmith
