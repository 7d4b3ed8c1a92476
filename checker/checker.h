// Checker: reads a history and returns a verdict with the anomalies that prove
// it, in one pass over its ops (CheckPass), so that a run's history can be
// judged as it is read from disk. Composite merges verdicts (false beats
// unknown beats true). Checkers are stateless between calls; Check and Start
// may be called from any thread (each pass belongs to one thread).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "history/history.h"
#include "history/op_stream.h"

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

// One checker's reading of one history: fed every op in history order
// (Observe), then asked for the verdict once (Finish). A pass keeps only what
// its verdict needs (open invokes per process, holds per key, counters), so
// that a history read from a stream is judged in memory that follows its
// keys and processes, not its length. The op given to Observe is the
// reader's: a pass copies what it keeps. Not thread-safe; one pass per run.
class CheckPass {
 public:
  virtual ~CheckPass() = default;
  virtual void Observe(const Op& op) = 0;
  // Observe, for a reader whose op is not needed afterwards: a pass that
  // keeps ops whole takes it rather than copy it.
  virtual void Take(Op&& op) { Observe(op); }
  virtual CheckResult Finish() = 0;
};

class Checker {
 public:
  virtual ~Checker() = default;
  virtual std::string Name() const = 0;
  // A new pass over one history.
  virtual std::unique_ptr<CheckPass> Start() const = 0;
  // The verdict on a history in memory: every op through one pass (or, for
  // a checker that needs them all at once, the history as it is).
  CheckResult Check(const History& history) const { return CheckHistory(history); }
  // Whether, when a CompositeChecker keeps every op anyway (for a
  // WholeHistoryChecker beside it), this checker would rather Check that
  // copy than run a pass of its own (one that spools what it keeps).
  virtual bool PrefersKeptHistory() const { return false; }

 protected:
  virtual CheckResult CheckHistory(const History& history) const;
};

// A checker that still needs every op at once (a search over a key's ops):
// its pass keeps the ops, and CheckWhole judges them. Several such checkers
// under one CompositeChecker share one copy.
class WholeHistoryChecker : public Checker {
 public:
  std::unique_ptr<CheckPass> Start() const override;
  virtual CheckResult CheckWhole(const History& history) const = 0;

 protected:
  CheckResult CheckHistory(const History& history) const override { return CheckWhole(history); }
};

// Runs several checkers; the merged result holds each one's result under its
// name in "stats" and the union of anomalies tagged with the checker's name.
// All of them read the history in the same single pass.
class CompositeChecker : public Checker {
 public:
  explicit CompositeChecker(std::vector<std::unique_ptr<Checker>> checkers);
  std::string Name() const override { return "composite"; }
  std::unique_ptr<CheckPass> Start() const override;

 protected:
  CheckResult CheckHistory(const History& history) const override;

 private:
  std::vector<std::unique_ptr<Checker>> checkers_;
};

// The driver: every op of `stream`, from where it stands, through one pass
// of `checker`; a malformed history is an error.
Result<CheckResult> CheckStream(const Checker& checker, OpStream& stream);

// NothingToJudge as a pass: fed every op, says the same reason at the end.
// It stops keeping anything at the first op that counts.
class NothingToJudgeTracker {
 public:
  explicit NothingToJudgeTracker(std::function<bool(const Op& invoke)> judged = nullptr)
      : judged_(std::move(judged)) {}
  void Observe(const Op& op);
  std::string Reason() const;
  // Applies it as ApplyNothingToJudge does.
  void Apply(CheckResult& result) const;

 private:
  std::function<bool(const Op& invoke)> judged_;
  bool found_ = false;
  std::unordered_map<int64_t, Op> open_;  // process -> its open invoke
};

// {"index", "process", "time", "type", "f", "key"?} of one op, for anomalies.
nlohmann::json OpRef(const Op& op);
// The op without its value, error and fault mark: what a pass keeps of an
// op it may name later (OpRef reads nothing else).
Op RefOnly(const Op& op);

}  // namespace locksmith
