// Nemesis: injects one family of faults. Invoke() performs a fault op
// ("kill" {"node":"n1"}, "restart" {"node":"n1"}, ...) and returns what
// happened; Teardown() heals everything this nemesis started, always, is
// safe to call twice, and returns what it could not heal (the run logs it
// and records it in results.json: a fault left in place may explain the
// verdict and must not go unnoticed). Ops are plain data (FaultOp) so
// schedules can be built by pure functions (nemesis/schedule.h). A
// nemesis's ops come from one thread at a time (its lane of the
// NemesisRunner); a CompositeNemesis routes the ops of different lanes to
// its parts concurrently. Teardown is called by the run lifecycle after the
// lanes have stopped.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace locksmith {

struct FaultOp {
  std::string f;  // fault name, e.g. "kill", "restart"
  nlohmann::json value = nullptr;

  bool operator==(const FaultOp&) const = default;
};

struct FaultResult {
  bool ok = true;        // false: the fault could not be applied
  nlohmann::json value;  // what was done (node, pid, ...)
  std::string error;     // why not, when !ok
  // Whether a check from outside saw the fault take effect (a killed server
  // back with a new pid, a paused one in state T, a probe that failed
  // across a cut, a clock read back): true or false, or unset when this op
  // checks nothing. The runner records it in the op's value ("observed");
  // the fault ledger (nemesis/fault_ledger.h) counts a fault as observed
  // only on such a check, so a fault that only seemed to happen never
  // vouches for a run.
  std::optional<bool> observed;
};

// One fault Teardown could not undo: the healing op it tried and why that
// failed.
struct HealFailure {
  std::string f;  // the healing op, e.g. "restart"
  nlohmann::json value = nullptr;
  std::string error;

  bool operator==(const HealFailure&) const = default;
};

// [{"f": ..., "value": ..., "error": ...}, ...] for results.json.
nlohmann::json HealFailuresJson(const std::vector<HealFailure>& failures);

class Nemesis {
 public:
  virtual ~Nemesis() = default;
  // The fault op names this nemesis handles.
  virtual std::vector<std::string> Faults() const = 0;
  virtual FaultResult Invoke(const FaultOp& op) = 0;
  // Heals everything; empty when everything was healed.
  [[nodiscard]] virtual std::vector<HealFailure> Teardown() = 0;
};

// Routes each op to the nemesis that handles its name.
class CompositeNemesis : public Nemesis {
 public:
  explicit CompositeNemesis(std::vector<std::unique_ptr<Nemesis>> parts);
  std::vector<std::string> Faults() const override;
  FaultResult Invoke(const FaultOp& op) override;
  // Every part's Teardown, last part first; their failures together.
  std::vector<HealFailure> Teardown() override;

 private:
  std::vector<std::unique_ptr<Nemesis>> parts_;
};

}  // namespace locksmith
