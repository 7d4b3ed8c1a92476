// Data models for the linearizability search: RegisterModel (register,
// cas-register and kv, Porcupine's per-key string with append), SetModel and
// CounterModel. Op names and semantics are listed in checker/model.h. Not
// thread-safe (one instance per check).
#pragma once

#include "checker/model.h"

namespace locksmith {

class RegisterModel : public Model {
 public:
  enum class Kind { kRegister, kCasRegister, kKv };
  RegisterModel(Kind kind, int64_t initial, ValueTable* values)
      : kind_(kind), initial_(initial), values_(values), nil_(values->Intern(nullptr)) {}

  std::string_view Name() const override;
  Result<CompiledOp> Compile(const std::string& f, const nlohmann::json& input,
                             const nlohmann::json* output, int64_t process) override;
  ModelState Initial() const override;
  bool Step(const ModelState& state, const ModelOp& op, ModelState* next) override;
  std::string DescribeState(const ModelState& state) const override;
  bool CannotBeInput(const std::string& f, const nlohmann::json& value) const override;
  std::vector<ModelState> CandidateStates(const std::vector<ModelOp>& ops) const override;
  bool Covers(const ModelOp& x, const ModelOp& y) const override;

 private:
  // Knossos's convention: an ok read of nil is a read whose value is
  // unknown. Only taken where nil cannot be a value of the register (a
  // non-nil initial value, and no write or cas of nil among the ops
  // compiled), so it never hides a register that was really emptied; where
  // nil can be a value (etcd's absent key, Porcupine's reading) a read of nil
  // says the register holds nil. Compile sees every op before any Step.
  bool NilReadIsUnknown() const { return kind_ != Kind::kKv && initial_ != nil_ && !nil_written_; }

  Kind kind_;
  int64_t initial_;  // interned
  ValueTable* values_;
  int64_t nil_;  // interned null
  bool nil_written_ = false;
};

// A set of values: add and remove always succeed; contains and read observe.
class SetModel : public Model {
 public:
  explicit SetModel(ValueTable* values) : values_(values) {}
  std::string_view Name() const override { return "set"; }
  Result<CompiledOp> Compile(const std::string& f, const nlohmann::json& input,
                             const nlohmann::json* output, int64_t process) override;
  ModelState Initial() const override { return {}; }
  bool Step(const ModelState& state, const ModelOp& op, ModelState* next) override;
  std::string DescribeState(const ModelState& state) const override;
  size_t MemoryBytes() const override { return sets_.MemoryBytes(); }

 private:
  ValueTable* values_;
  SequenceTable sets_;  // state.a: sorted element ids
};

// Jepsen's counter: add n (any integer) and read the total.
class CounterModel : public Model {
 public:
  explicit CounterModel(int64_t initial) : initial_(initial) {}
  std::string_view Name() const override { return "counter"; }
  Result<CompiledOp> Compile(const std::string& f, const nlohmann::json& input,
                             const nlohmann::json* output, int64_t process) override;
  ModelState Initial() const override;
  bool Step(const ModelState& state, const ModelOp& op, ModelState* next) override;
  std::string DescribeState(const ModelState& state) const override;

 private:
  int64_t initial_;
};

}  // namespace locksmith
