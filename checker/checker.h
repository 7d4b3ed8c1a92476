// Checker: reads a history and returns a verdict with the anomalies that prove
// it. Composite merges verdicts (false beats unknown beats true). Checkers are
// stateless between calls; Check may be called from any thread.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/history.h"

namespace locksmith {

enum class Validity { kTrue, kFalse, kUnknown };

// JSON form: true, false or "unknown" (as Jepsen writes it).
nlohmann::json ValidityToJson(Validity v);
Result<Validity> ValidityFromJson(const nlohmann::json& j);
// false beats unknown beats true.
Validity MergeValidity(Validity a, Validity b);
// Process exit code for a verdict: 0 valid, 1 invalid, 2 unknown.
int ExitCodeFor(Validity v);

struct CheckResult {
  Validity valid = Validity::kTrue;
  // Each anomaly is an object with at least "type" and the ops that prove it
  // ("ops": [{index, process, time, ...}]).
  nlohmann::json anomalies = nlohmann::json::array();
  nlohmann::json stats = nlohmann::json::object();
  std::string reason;  // why the verdict is unknown, when it is
  // What the user must know about the input whatever the verdict, one line
  // each (e.g. a last line cut short by a crash and skipped). JSON:
  // "warnings", only when there are some.
  std::vector<std::string> warnings;
  // One line a person reads next to the checker's name in a run's summary
  // ("3 double holders: 2 unsafe grants, ..."); empty when the verdict says
  // it all. Each checker writes its own, so whoever prints a run's summary
  // needs to know no checker's stats.
  std::string summary;

  nlohmann::json ToJson() const;
};

// The one rule for a history that cannot support "valid": no client op has
// both an invoke and an ok completion (an empty history, only nemesis ops,
// only completions, every op failed or timed out). Both `locksmith check
// FILE` (CheckLinearizable) and the judging of a run directory apply it.
// `judged`, when given, narrows "client op" to the invokes a checker
// models. Returns the reason the verdict is unknown, or "" when there is
// something to judge.
std::string NothingToJudge(const History& history,
                           const std::function<bool(const Op& invoke)>& judged = nullptr);
// Applies it: a verdict of valid or unknown becomes unknown with that
// reason; invalid stands (an anomaly in what there is still counts).
void ApplyNothingToJudge(const History& history, CheckResult& result,
                         const std::function<bool(const Op& invoke)>& judged = nullptr);

class Checker {
 public:
  virtual ~Checker() = default;
  virtual std::string Name() const = 0;
  virtual CheckResult Check(const History& history) const = 0;
};

// Runs several checkers; the merged result holds each one's result under its
// name in "stats" and the union of anomalies tagged with the checker's name.
class CompositeChecker : public Checker {
 public:
  explicit CompositeChecker(std::vector<std::unique_ptr<Checker>> checkers);
  std::string Name() const override { return "composite"; }
  CheckResult Check(const History& history) const override;

 private:
  std::vector<std::unique_ptr<Checker>> checkers_;
};

// {"index", "process", "time", "type", "f", "key"?} of one op, for anomalies.
nlohmann::json OpRef(const Op& op);

}  // namespace locksmith
