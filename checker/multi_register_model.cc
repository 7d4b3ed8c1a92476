#include "checker/multi_register_model.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace locksmith {
namespace {

enum MicroOp : int64_t { kMicroRead = 0, kMicroWrite = 1 };

}  // namespace

MultiRegisterModel::MultiRegisterModel(ValueTable* values)
    : values_(values), nil_(values->Intern(nullptr)) {}

Result<std::unique_ptr<Model>> MultiRegisterModel::Make(const nlohmann::json& initial,
                                                        ValueTable* values) {
  if (!initial.is_null() && !initial.is_object()) {
    return Error{"the multi-register initial value must be an object of register -> value, "
                 "got " + SafeDump(initial)};
  }
  std::unique_ptr<MultiRegisterModel> model(new MultiRegisterModel(values));
  std::vector<std::pair<int64_t, int64_t>> registers;
  if (initial.is_object()) {
    for (const auto& [name, value] : initial.items()) {
      registers.emplace_back(model->RegisterId(nlohmann::json(name)), values->Intern(value));
    }
  }
  model->initial_ = model->Intern(std::move(registers));
  return std::unique_ptr<Model>(std::move(model));
}

bool MultiRegisterModel::IsTxn(const nlohmann::json& value) {
  if (!value.is_array()) return false;
  for (const auto& micro : value) {
    if (!micro.is_array() || micro.size() != 3 || !micro[0].is_string()) return false;
    const auto& f = micro[0].get_ref<const std::string&>();
    if (f != "read" && f != "write") return false;
  }
  return true;
}

bool MultiRegisterModel::CannotBeInput(const std::string& f, const nlohmann::json& value) const {
  return f == "txn" && !IsTxn(value);
}

int64_t MultiRegisterModel::RegisterId(const nlohmann::json& name) {
  // As text: --initial's object keys are strings, histories' may be numbers.
  return values_->Intern(name.is_string() ? name : nlohmann::json(SafeDump(name)));
}

ModelState MultiRegisterModel::Intern(std::vector<std::pair<int64_t, int64_t>> registers) {
  std::sort(registers.begin(), registers.end());
  std::vector<int64_t> flat;
  for (const auto& [name, value] : registers) {
    if (value == nil_) continue;
    flat.push_back(name);
    flat.push_back(value);
  }
  return ModelState{states_.Intern(flat), 0};
}

Result<CompiledOp> MultiRegisterModel::Compile(const std::string& f, const nlohmann::json& input,
                                               const nlohmann::json* output, int64_t process) {
  CompiledOp c;
  if (f != "txn") {
    c.modelled = false;
    return c;
  }
  // An ok txn's completion carries the reads' values; otherwise the invoke's
  // writes are what may have happened, and its reads say nothing.
  const nlohmann::json& txn = output != nullptr ? *output : input;
  if (!IsTxn(txn)) {
    return Error{std::string("a multi-register txn ") +
                 (output != nullptr ? "completion" : "invoke") +
                 " must carry a list of [:read k v] / [:write k v] micro-ops, got " +
                 SafeDump(txn)};
  }
  std::vector<int64_t> encoded;
  bool writes = false;
  for (const auto& micro : txn) {
    const bool write = micro[0] == "write";
    writes = writes || write;
    encoded.push_back(write ? kMicroWrite : kMicroRead);
    encoded.push_back(RegisterId(micro[1]));
    // A read nobody saw (pending) or read as nil (Knossos) matches anything.
    encoded.push_back(write || output != nullptr ? values_->Intern(micro[2]) : nil_);
  }
  c.read_only = !writes;
  c.op.process = process;
  c.op.known = output != nullptr;
  c.op.arg0 = static_cast<int64_t>(txns_.Intern(encoded));
  return c;
}

bool MultiRegisterModel::Step(const ModelState& state, const ModelOp& op, ModelState* next) {
  *next = state;
  const std::vector<int64_t>& flat = states_.Get(state.a);
  // Copied: Intern below may grow the table that `flat` points into.
  std::vector<std::pair<int64_t, int64_t>> registers;
  for (size_t i = 0; i + 1 < flat.size(); i += 2) registers.emplace_back(flat[i], flat[i + 1]);
  // A reference is safe: Step never interns a txn.
  const std::vector<int64_t>& micro = txns_.Get(static_cast<uint64_t>(op.arg0));
  bool changed = false;
  for (size_t i = 0; i + 2 < micro.size(); i += 3) {
    const int64_t name = micro[i + 1], value = micro[i + 2];
    auto it = std::lower_bound(registers.begin(), registers.end(),
                               std::make_pair(name, INT64_MIN));
    const bool present = it != registers.end() && it->first == name;
    if (micro[i] == kMicroRead) {
      const int64_t current = present ? it->second : nil_;
      if (value != nil_ && value != current) return false;
      continue;
    }
    changed = true;
    if (present) {
      it->second = value;
    } else {
      registers.insert(it, {name, value});
    }
  }
  if (changed) *next = Intern(std::move(registers));
  return true;
}

std::string MultiRegisterModel::DescribeState(const ModelState& state) const {
  const std::vector<int64_t>& flat = states_.Get(state.a);
  std::string text = "{";
  for (size_t i = 0; i + 1 < flat.size(); i += 2) {
    if (i) text += ", ";
    text += values_->Describe(flat[i]) + " " + values_->Describe(flat[i + 1]);
  }
  return text + "}";
}

}  // namespace locksmith
