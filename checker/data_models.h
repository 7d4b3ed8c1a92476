// Data models for the linearizability search: RegisterModel (register,
// cas-register and kv, Porcupine's per-key string with append), SetModel and
// CounterModel. Op names and semantics are listed in checker/model.h. Not
// thread-safe (one instance per check, or per search thread: CloneForSearch).
#pragma once

#include <memory>
#include <unordered_map>
#include <utility>

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
  size_t MemoryBytes() const override;
  std::unique_ptr<Model> CloneForSearch() const override;

 private:
  struct PairHash {
    size_t operator()(const std::pair<int64_t, int64_t>& p) const {
      return static_cast<size_t>((static_cast<uint64_t>(p.first) * 0x9E3779B97F4A7C15ull) ^
                                 static_cast<uint64_t>(p.second));
    }
  };
  int64_t Append(int64_t value, int64_t suffix);

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
  // A kv search thread's copy interns the strings its appends make here,
  // layered on the check's table, which it only reads.
  std::shared_ptr<ValueTable> own_values_;
  // kv: (value, suffix) -> their concatenation, interned. A search steps the
  // same appends again and again; building, dumping and interning the
  // string each time was three quarters of a kv check's instructions.
  std::unordered_map<std::pair<int64_t, int64_t>, int64_t, PairHash> appended_;
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
  std::unique_ptr<Model> CloneForSearch() const override {
    return std::make_unique<CounterModel>(*this);
  }

 private:
  int64_t initial_;
};

}  // namespace locksmith
