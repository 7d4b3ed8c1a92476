#include "checker/value_table.h"

#include <algorithm>

namespace locksmith {
namespace {

// Integers in this range are stored as 2*v (even ids); everything else gets
// an odd id 2*slot+1. The range leaves room for the doubling.
constexpr int64_t kSmallIntLimit = int64_t{1} << 61;
// Rough per-entry overhead of a hash node plus a json value, for budgets.
constexpr size_t kEntryOverhead = 96;
// TextHash's base: odd, so that its powers mod 2^64 never vanish.
constexpr uint64_t kTextHashBase = 0x100000001b3ull;

// Where a TextHash starts its probe in a table of mask + 1 slots: the hash
// mixed (its low bits alone depend on few bytes).
size_t StringSlot(uint64_t hash, size_t mask) {
  hash ^= hash >> 33;
  hash *= 0xff51afd7ed558ccdull;
  hash ^= hash >> 33;
  return static_cast<size_t>(hash) & mask;
}

// kTextHashBase^n mod 2^64.
uint64_t TextHashPower(size_t n) {
  uint64_t power = 1, base = kTextHashBase;
  for (; n > 0; n >>= 1, base *= base) {
    if (n & 1) power *= base;
  }
  return power;
}

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

uint64_t ValueTable::TextHash(std::string_view text) {
  uint64_t hash = 0;
  for (char c : text) hash = hash * kTextHashBase + static_cast<unsigned char>(c) + 1;
  return hash;
}

template <typename Same>
std::optional<int64_t> ValueTable::FindString(uint64_t hash, const Same& same) const {
  for (const ValueTable* t = this; t != nullptr; t = t->base_) {
    if (t->string_slots_.empty()) continue;
    const size_t mask = t->string_slots_.size() - 1;
    for (size_t i = StringSlot(hash, mask);; i = (i + 1) & mask) {
      const int64_t id = t->string_slots_[i];
      if (id == 0) break;
      if (t->TextHashAt(id) == hash && same(t->StringAt(id))) return id;
    }
  }
  return std::nullopt;
}

void ValueTable::IndexString(int64_t id, uint64_t hash) {
  if (2 * (strings_ + 1) > string_slots_.size()) {
    std::vector<int64_t> old = std::move(string_slots_);
    string_slots_.assign(std::max<size_t>(64, 2 * old.size()), 0);
    bytes_ += (string_slots_.size() - old.size()) * sizeof(int64_t);
    for (int64_t moved : old) {
      if (moved != 0) PlaceString(moved, TextHashAt(moved));
    }
  }
  PlaceString(id, hash);
  ++strings_;
}

void ValueTable::PlaceString(int64_t id, uint64_t hash) {
  const size_t mask = string_slots_.size() - 1;
  size_t i = StringSlot(hash, mask);
  while (string_slots_[i] != 0) i = (i + 1) & mask;
  string_slots_[i] = id;
}

int64_t ValueTable::InternString(std::string text) {
  const uint64_t hash = TextHash(text);
  if (auto id = FindString(hash, [&](const std::string& s) { return s == text; })) return *id;
  const int64_t id = Insert(nlohmann::json(std::move(text)), hash);
  IndexString(id, hash);
  return id;
}

int64_t ValueTable::InternConcat(int64_t head, int64_t tail) {
  const std::string& first = StringAt(head);
  const std::string& second = StringAt(tail);
  const uint64_t hash = TextHashAt(head) * TextHashPower(second.size()) + TextHashAt(tail);
  auto same = [&](const std::string& s) {
    return s.size() == first.size() + second.size() && s.compare(0, first.size(), first) == 0 &&
           s.compare(first.size(), second.size(), second) == 0;
  };
  if (auto id = FindString(hash, same)) return *id;
  std::string joined;
  joined.reserve(first.size() + second.size());
  joined += first;
  joined += second;
  const int64_t id = Insert(nlohmann::json(std::move(joined)), hash);
  IndexString(id, hash);
  return id;
}

int64_t ValueTable::Insert(nlohmann::json value, uint64_t text_hash) {
  const int64_t id = static_cast<int64_t>(first_slot_ + values_.size()) * 2 + 1;
  bytes_ += kEntryOverhead + sizeof(uint64_t) +
            (value.is_string() ? value.get_ref<const std::string&>().size() : 0);
  values_.push_back(std::move(value));
  text_hashes_.push_back(text_hash);
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
