// MultiRegisterModel: Knossos's multi-register (knossos.model/multi-register),
// a map of registers changed by transactions. An op is `:f :txn` whose value
// is a list of micro-ops [:read k v] / [:write k v], applied atomically and in
// order. In an ok txn a read of nil matches any value (Knossos: the read's
// value is unknown); the reads of a txn that never completed ok constrain
// nothing. Every register starts nil, or as --initial, a JSON object of
// register -> value. Register names are compared as text, so an integer
// register 1 and the --initial key "1" are one register.
// States are interned (sorted register/value pairs), so equal states have
// equal words. Not thread-safe: one instance per check.
#pragma once

#include <string>
#include <vector>

#include "checker/model.h"

namespace locksmith {

class MultiRegisterModel : public Model {
 public:
  // `initial`: null, or an object of register -> value (checked by Make).
  static Result<std::unique_ptr<Model>> Make(const nlohmann::json& initial, ValueTable* values);

  std::string_view Name() const override { return "multi-register"; }
  Result<CompiledOp> Compile(const std::string& f, const nlohmann::json& input,
                             const nlohmann::json* output, int64_t process) override;
  ModelState Initial() const override { return initial_; }
  bool Step(const ModelState& state, const ModelOp& op, ModelState* next) override;
  std::string DescribeState(const ModelState& state) const override;
  bool CannotBeInput(const std::string& f, const nlohmann::json& value) const override;
  size_t MemoryBytes() const override { return states_.MemoryBytes() + txns_.MemoryBytes(); }

  // Whether `value` has the shape of a txn: a list of [read|write k v].
  static bool IsTxn(const nlohmann::json& value);

 private:
  explicit MultiRegisterModel(ValueTable* values);
  int64_t RegisterId(const nlohmann::json& name);
  // Interns a map given as (register, value) pairs, sorted by register, with
  // nil values left out (an absent register reads nil).
  ModelState Intern(std::vector<std::pair<int64_t, int64_t>> registers);

  ValueTable* values_;
  int64_t nil_;
  ModelState initial_;
  SequenceTable states_;  // state.a: register, value, register, value, ...
  SequenceTable txns_;    // op.arg0: kind, register, value per micro-op
};

}  // namespace locksmith
