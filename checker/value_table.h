// Compact, interned values for the linearizability search: a 1M-op history
// of nlohmann::json values is far too heavy to compare and hash inside the
// search, so every value becomes a 64-bit id once, before searching.
// ValueTable interns JSON values (small integers map to themselves, so no
// table entry is spent on them); SequenceTable interns sorted id sequences
// (sets, reader lists) for models whose state is a collection.
// Neither is thread-safe: one table per check (a search thread's model may
// copy it: RegisterModel::CloneForSearch).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

namespace locksmith {

class ValueTable {
 public:
  // Id of JSON null (nil), interned first.
  static constexpr int64_t kNull = 1;

  ValueTable();
  // A table layered on `base`, which must not change while this one lives:
  // it finds base's values under their ids and adds new ones under ids of
  // its own, so that a search thread interns without touching the table
  // other threads read. MemoryBytes counts only what it adds.
  explicit ValueTable(const ValueTable* base);
  ValueTable(const ValueTable&) = delete;
  ValueTable& operator=(const ValueTable&) = delete;
  int64_t Intern(const nlohmann::json& value);
  // Intern(nlohmann::json(text)) without building the JSON to look it up.
  int64_t InternString(std::string text);
  // InternString(StringAt(head) + StringAt(tail)), both ids of strings,
  // without hashing the concatenation: its hash is made from its parts'
  // (a kv append makes a new string at every step of a search).
  int64_t InternConcat(int64_t head, int64_t tail);
  nlohmann::json Value(int64_t id) const;
  // The string an id of a JSON string stands for.
  const std::string& StringAt(int64_t id) const {
    return At(id).get_ref<const std::string&>();
  }
  // Short EDN-like text for verdicts: 3, nil, "a", [1 2].
  std::string Describe(int64_t id) const;
  size_t MemoryBytes() const { return bytes_; }

 private:
  int64_t Insert(nlohmann::json value, uint64_t text_hash = 0);
  // A polynomial hash of a string's bytes (mod 2^64): the hash of a + b is
  // hash(a) * kTextHashBase^|b| + hash(b).
  static uint64_t TextHash(std::string_view text);
  uint64_t TextHashAt(int64_t id) const {
    const auto slot = static_cast<size_t>(id / 2);
    return slot < first_slot_ ? base_->TextHashAt(id) : text_hashes_[slot - first_slot_];
  }
  // The string interned with this hash that `same` accepts, here or in a
  // base table.
  template <typename Same>
  std::optional<int64_t> FindString(uint64_t hash, const Same& same) const;
  // Adds a string of this table to string_slots_.
  void IndexString(int64_t id, uint64_t hash);
  void PlaceString(int64_t id, uint64_t hash);
  const nlohmann::json& At(int64_t id) const {
    const auto slot = static_cast<size_t>(id / 2);
    return slot < first_slot_ ? base_->At(id) : values_[slot - first_slot_];
  }

  const ValueTable* base_ = nullptr;
  size_t first_slot_ = 0;  // base's slots come first

  std::vector<nlohmann::json> values_;
  // Values other than strings, by their JSON text.
  std::unordered_map<std::string, int64_t> ids_;
  // This table's strings by TextHash, found without serializing or copying
  // them: an open-addressing table (linear probing, at most half full) of
  // ids, 0 for an empty slot (a string's id is odd), a match's bytes
  // compared. No allocation per string, as a node-based map would make.
  std::vector<int64_t> string_slots_;
  size_t strings_ = 0;
  std::vector<uint64_t> text_hashes_;  // each slot's TextHash (0: not a string)
  size_t bytes_ = 0;
};

class SequenceTable {
 public:
  SequenceTable();  // id 0 is the empty sequence
  uint64_t Intern(const std::vector<int64_t>& sequence);
  const std::vector<int64_t>& Get(uint64_t id) const { return sequences_[id]; }
  size_t MemoryBytes() const { return bytes_; }

 private:
  struct Hash {
    size_t operator()(const std::vector<int64_t>& v) const;
  };
  std::vector<std::vector<int64_t>> sequences_;
  std::unordered_map<std::vector<int64_t>, uint64_t, Hash> ids_;
  size_t bytes_ = 0;
};

// EDN-like text for verdicts: 3, nil, "a", [1 nil].
std::string DescribeValue(const nlohmann::json& value);

// Dumps JSON without throwing on odd input (invalid UTF-8 is replaced).
std::string SafeDump(const nlohmann::json& value);

}  // namespace locksmith
