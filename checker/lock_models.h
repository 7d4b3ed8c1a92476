// Lock models for the linearizability search: MutexModel (plain Knossos
// mutex, owner-aware mutex, fenced mutex) and RwLockModel. Op names and
// semantics are listed in checker/model.h. Not thread-safe (one instance per
// check, or per search thread: MutexModel::CloneForSearch).
#pragma once

#include "checker/model.h"

namespace locksmith {

class MutexModel : public Model {
 public:
  enum class Kind { kPlain, kOwner, kFenced };
  explicit MutexModel(Kind kind) : kind_(kind) {}

  std::string_view Name() const override;
  Result<CompiledOp> Compile(const std::string& f, const nlohmann::json& input,
                             const nlohmann::json* output, int64_t process) override;
  ModelState Initial() const override;
  bool Step(const ModelState& state, const ModelOp& op, ModelState* next) override;
  std::string DescribeState(const ModelState& state) const override;
  bool UsesProcess() const override { return kind_ != Kind::kPlain; }
  std::vector<ModelState> CandidateStates(const std::vector<ModelOp>& ops) const override;
  std::unique_ptr<Model> CloneForSearch() const override {
    return std::make_unique<MutexModel>(*this);
  }

 private:
  Kind kind_;
};

// Owner-aware read-write lock: one exclusive holder, or any number of
// shared holders (each process at most once).
class RwLockModel : public Model {
 public:
  std::string_view Name() const override { return "rw-lock"; }
  Result<CompiledOp> Compile(const std::string& f, const nlohmann::json& input,
                             const nlohmann::json* output, int64_t process) override;
  ModelState Initial() const override { return {}; }
  bool Step(const ModelState& state, const ModelOp& op, ModelState* next) override;
  std::string DescribeState(const ModelState& state) const override;
  bool UsesProcess() const override { return true; }
  size_t MemoryBytes() const override { return readers_.MemoryBytes(); }

 private:
  SequenceTable readers_;  // state.b: sorted reader processes
};

}  // namespace locksmith
