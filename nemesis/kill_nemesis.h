// KillNemesis: "kill" SIGKILLs a node's server, "restart" starts it again (what
// it remembers depends on the backend's persistence). Teardown starts every
// node it killed that is still down and returns the starts that failed
// (those nodes stay on its list). Used from the nemesis thread;
// Teardown afterwards from the run thread; not otherwise thread-safe.
#pragma once

#include <set>
#include <string>

#include "backends/lock_service.h"
#include "nemesis/nemesis.h"

namespace locksmith {

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
