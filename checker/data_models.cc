#include "checker/data_models.h"

#include <algorithm>

namespace locksmith {
namespace {

enum RegisterCode : uint32_t { kRead, kWrite, kCas, kAppend };
enum SetCode : uint32_t { kAdd, kRemove, kContains, kReadSet };
// The output of a set read that no set can give (SequenceTable ids are >= 0).
constexpr int64_t kNoSet = -1;
enum CounterCode : uint32_t { kIncrement, kReadTotal };

CompiledOp Unmodelled() {
  CompiledOp c;
  c.modelled = false;
  return c;
}

CompiledOp Basic(uint32_t code, int64_t process, const nlohmann::json* output) {
  CompiledOp c;
  c.op.code = code;
  c.op.process = process;
  c.op.known = output != nullptr;
  return c;
}

}  // namespace

std::string_view RegisterModel::Name() const {
  switch (kind_) {
    case Kind::kRegister: return "register";
    case Kind::kCasRegister: return "cas-register";
    case Kind::kKv: return "kv";
  }
  return "register";
}

bool RegisterModel::CannotBeInput(const std::string& f, const nlohmann::json& value) const {
  return kind_ == Kind::kCasRegister && f == "cas" && !(value.is_array() && value.size() == 2);
}

Result<CompiledOp> RegisterModel::Compile(const std::string& f, const nlohmann::json& input,
                                          const nlohmann::json* output, int64_t process) {
  const bool kv = kind_ == Kind::kKv;
  // A kv value is one string (Porcupine's kv): anything else would make
  // append ambiguous (a list? a number?), so it is refused, never guessed.
  const auto not_a_string = [&](const char* what, const nlohmann::json& value) {
    return Error{std::string("a kv ") + what + " must carry a string (the key's value), got " +
                 SafeDump(value)};
  };
  if (f == "read" || (kv && f == "get")) {
    CompiledOp c = Basic(kRead, process, output);
    c.read_only = true;
    if (output != nullptr) {
      if (kv && !output->is_string()) return not_a_string("get's completion", *output);
      c.op.out = values_->Intern(*output);
    }
    return c;
  }
  if (f == "write" || (kv && f == "put")) {
    if (kv && !input.is_string()) return not_a_string("put", input);
    CompiledOp c = Basic(kWrite, process, output);
    c.op.arg0 = values_->Intern(input);
    nil_written_ = nil_written_ || c.op.arg0 == nil_;
    return c;
  }
  if (kv && f == "append") {
    if (!input.is_string()) return not_a_string("append", input);
    CompiledOp c = Basic(kAppend, process, output);
    c.op.arg0 = values_->Intern(input);
    return c;
  }
  if (f == "cas") {
    if (kind_ != Kind::kCasRegister) {
      return Error{"model " + std::string(Name()) + " has no cas (use --model cas-register)"};
    }
    if (!input.is_array() || input.size() != 2) {
      return Error{"a cas value must be [old new], got " + SafeDump(input)};
    }
    CompiledOp c = Basic(kCas, process, output);
    c.op.arg0 = values_->Intern(input[0]);
    c.op.arg1 = values_->Intern(input[1]);
    nil_written_ = nil_written_ || c.op.arg1 == nil_;
    return c;
  }
  return Unmodelled();
}

std::vector<ModelState> RegisterModel::CandidateStates(const std::vector<ModelOp>& ops) const {
  std::vector<int64_t> values = {initial_};
  for (const ModelOp& op : ops) {
    switch (op.code) {
      case kAppend: return {};  // appends build values no op names
      case kWrite: values.push_back(op.arg0); break;
      case kCas: values.push_back(op.arg1); break;
      default: break;
    }
  }
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  std::vector<ModelState> states;
  for (int64_t v : values) states.push_back(ModelState{static_cast<uint64_t>(v), 0});
  return states;
}

bool RegisterModel::Covers(const ModelOp& x, const ModelOp& y) const {
  return x.code == kWrite && y.code == kCas && x.arg0 == y.arg1;
}

ModelState RegisterModel::Initial() const {
  ModelState s;
  s.a = static_cast<uint64_t>(initial_);
  return s;
}

bool RegisterModel::Step(const ModelState& state, const ModelOp& op, ModelState* next) {
  *next = state;
  const auto current = static_cast<int64_t>(state.a);
  switch (op.code) {
    case kRead: return !op.known || op.out == current || (op.out == nil_ && NilReadIsUnknown());
    case kWrite: next->a = static_cast<uint64_t>(op.arg0); return true;
    case kCas:
      if (current == op.arg0) {
        next->a = static_cast<uint64_t>(op.arg1);
        return true;
      }
      // A pending cas whose compare fails simply had no effect.
      return !op.known;
    case kAppend: next->a = static_cast<uint64_t>(Append(current, op.arg0)); return true;
    default: return false;
  }
}

int64_t RegisterModel::Append(int64_t value, int64_t suffix) {
  auto [it, inserted] = appended_.try_emplace({value, suffix}, 0);
  // Compile let only strings in, and the initial kv value is a string.
  if (inserted) it->second = values_->InternConcat(value, suffix);
  return it->second;
}

size_t RegisterModel::MemoryBytes() const {
  // A hash node of two keys and a value, and its bucket.
  return appended_.size() * 48 + (own_values_ ? own_values_->MemoryBytes() : 0);
}

std::unique_ptr<Model> RegisterModel::CloneForSearch() const {
  auto copy = std::make_unique<RegisterModel>(*this);
  copy->appended_.clear();  // its own, built as its search goes
  if (kind_ == Kind::kKv) {
    copy->own_values_ = std::make_shared<ValueTable>(values_);
    copy->values_ = copy->own_values_.get();
  }
  return copy;
}

std::string RegisterModel::DescribeState(const ModelState& state) const {
  return "value " + values_->Describe(static_cast<int64_t>(state.a));
}

Result<CompiledOp> SetModel::Compile(const std::string& f, const nlohmann::json& input,
                                     const nlohmann::json* output, int64_t process) {
  if (f == "add" || f == "remove" || f == "delete") {
    CompiledOp c = Basic(f == "add" ? kAdd : kRemove, process, output);
    c.op.arg0 = values_->Intern(input);
    return c;
  }
  if (f == "contains") {
    CompiledOp c = Basic(kContains, process, output);
    c.read_only = true;
    c.op.arg0 = values_->Intern(input);
    if (output != nullptr) {
      if (!output->is_boolean()) {
        return Error{"a set contains must complete with true or false, got " +
                     SafeDump(*output)};
      }
      c.op.out = output->get<bool>() ? 1 : 0;
    }
    return c;
  }
  if (f == "read") {
    CompiledOp c = Basic(kReadSet, process, output);
    c.read_only = true;
    if (output != nullptr) {
      if (!output->is_array()) {
        return Error{"a set read must complete with the set's elements, got " +
                     SafeDump(*output)};
      }
      std::vector<int64_t> ids;
      for (const auto& element : *output) ids.push_back(values_->Intern(element));
      std::sort(ids.begin(), ids.end());
      // An element listed twice is no set's read: it matches no state.
      const bool duplicates = std::adjacent_find(ids.begin(), ids.end()) != ids.end();
      c.op.out = duplicates ? kNoSet : static_cast<int64_t>(sets_.Intern(ids));
    }
    return c;
  }
  return Unmodelled();
}

bool SetModel::Step(const ModelState& state, const ModelOp& op, ModelState* next) {
  *next = state;
  const std::vector<int64_t>& elements = sets_.Get(state.a);
  auto it = std::lower_bound(elements.begin(), elements.end(), op.arg0);
  const bool present = it != elements.end() && *it == op.arg0;
  switch (op.code) {
    case kAdd: {
      if (present) return true;
      std::vector<int64_t> more(elements.begin(), it);
      more.push_back(op.arg0);
      more.insert(more.end(), it, elements.end());
      next->a = sets_.Intern(more);
      return true;
    }
    case kRemove: {
      if (!present) return true;
      std::vector<int64_t> fewer(elements.begin(), it);
      fewer.insert(fewer.end(), it + 1, elements.end());
      next->a = sets_.Intern(fewer);
      return true;
    }
    case kContains: return !op.known || (op.out == 1) == present;
    case kReadSet: return !op.known || static_cast<uint64_t>(op.out) == state.a;
    default: return false;
  }
}

std::string SetModel::DescribeState(const ModelState& state) const {
  std::string text = "#{";
  const std::vector<int64_t>& elements = sets_.Get(state.a);
  for (size_t i = 0; i < elements.size(); ++i) {
    if (i) text += ' ';
    text += values_->Describe(elements[i]);
  }
  return text + "}";
}

Result<CompiledOp> CounterModel::Compile(const std::string& f, const nlohmann::json& input,
                                         const nlohmann::json* output, int64_t process) {
  if (f == "add" || f == "increment" || f == "inc") {
    CompiledOp c = Basic(kIncrement, process, output);
    if (input.is_null() && f != "add") {
      c.op.arg0 = 1;  // Jepsen's :inc carries no value; an add without one is malformed
    } else if (input.is_number_integer()) {
      c.op.arg0 = input.get<int64_t>();
    } else {
      return Error{"a counter add must carry an integer, got " + SafeDump(input)};
    }
    return c;
  }
  if (f == "read") {
    CompiledOp c = Basic(kReadTotal, process, output);
    c.read_only = true;
    if (output != nullptr) {
      if (!output->is_number_integer()) {
        return Error{"a counter read must complete with an integer, got " + SafeDump(*output)};
      }
      c.op.out = output->get<int64_t>();
    }
    return c;
  }
  return Unmodelled();
}

ModelState CounterModel::Initial() const {
  ModelState s;
  s.a = static_cast<uint64_t>(initial_);
  return s;
}

bool CounterModel::Step(const ModelState& state, const ModelOp& op, ModelState* next) {
  *next = state;
  if (op.code == kIncrement) {
    next->a = state.a + static_cast<uint64_t>(op.arg0);  // wraps like the service would
    return true;
  }
  return !op.known || op.out == static_cast<int64_t>(state.a);
}

std::string CounterModel::DescribeState(const ModelState& state) const {
  return "value " + std::to_string(static_cast<int64_t>(state.a));
}

}  // namespace locksmith
