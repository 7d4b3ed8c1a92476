#include "checker/value_table.h"

namespace locksmith {
namespace {

// Integers in this range are stored as 2*v (even ids); everything else gets
// an odd id 2*slot+1. The range leaves room for the doubling.
constexpr int64_t kSmallIntLimit = int64_t{1} << 61;
// Rough per-entry overhead of a hash node plus a json value, for budgets.
constexpr size_t kEntryOverhead = 96;

}  // namespace

std::string SafeDump(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string DescribeValue(const nlohmann::json& value) {
  if (value.is_null()) return "nil";
  if (value.is_array()) {
    std::string out = "[";
    for (size_t i = 0; i < value.size(); ++i) {
      if (i) out += ' ';
      out += DescribeValue(value[i]);
    }
    return out + "]";
  }
  return SafeDump(value);
}

ValueTable::ValueTable() { Intern(nullptr); }

ValueTable::ValueTable(const ValueTable* base)
    : base_(base), first_slot_(base->first_slot_ + base->values_.size()) {}

int64_t ValueTable::Intern(const nlohmann::json& value) {
  if (value.is_number_unsigned()) {
    const uint64_t u = value.get<uint64_t>();
    if (u < static_cast<uint64_t>(kSmallIntLimit)) return static_cast<int64_t>(u) * 2;
  } else if (value.is_number_integer()) {
    const int64_t v = value.get<int64_t>();
    if (v > -kSmallIntLimit && v < kSmallIntLimit) return v * 2;
  }
  if (value.is_string()) return InternString(value.get<std::string>());
  std::string key = SafeDump(value);
  for (const ValueTable* t = base_; t != nullptr; t = t->base_) {
    if (auto in_base = t->ids_.find(key); in_base != t->ids_.end()) return in_base->second;
  }
  auto it = ids_.find(key);
  if (it != ids_.end()) return it->second;
  bytes_ += key.size();
  const int64_t id = Insert(value);
  ids_.emplace(std::move(key), id);
  return id;
}

int64_t ValueTable::InternString(std::string text) {
  for (const ValueTable* t = base_; t != nullptr; t = t->base_) {
    if (auto in_base = t->string_ids_.find(text); in_base != t->string_ids_.end()) {
      return in_base->second;
    }
  }
  auto it = string_ids_.find(text);
  if (it != string_ids_.end()) return it->second;
  const int64_t id = Insert(nlohmann::json(std::move(text)));
  string_ids_.emplace(StringAt(id), id);
  return id;
}

int64_t ValueTable::Insert(nlohmann::json value) {
  const int64_t id = static_cast<int64_t>(first_slot_ + values_.size()) * 2 + 1;
  bytes_ += kEntryOverhead + (value.is_string() ? value.get_ref<const std::string&>().size() : 0);
  values_.push_back(std::move(value));
  return id;
}

nlohmann::json ValueTable::Value(int64_t id) const {
  if (id % 2 == 0) return id / 2;
  return At(id);
}

std::string ValueTable::Describe(int64_t id) const {
  if (id % 2 == 0) return std::to_string(id / 2);
  return DescribeValue(At(id));
}

size_t SequenceTable::Hash::operator()(const std::vector<int64_t>& v) const {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ v.size();
  for (int64_t x : v) {
    h ^= static_cast<uint64_t>(x) + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  }
  return static_cast<size_t>(h);
}

SequenceTable::SequenceTable() { Intern({}); }

uint64_t SequenceTable::Intern(const std::vector<int64_t>& sequence) {
  auto it = ids_.find(sequence);
  if (it != ids_.end()) return it->second;
  const uint64_t id = sequences_.size();
  bytes_ += kEntryOverhead + 2 * sequence.size() * sizeof(int64_t);
  sequences_.push_back(sequence);
  ids_.emplace(sequence, id);
  return id;
}

}  // namespace locksmith
