// Compact, interned values for the linearizability search: a 1M-op history
// of nlohmann::json values is far too heavy to compare and hash inside the
// search, so every value becomes a 64-bit id once, before searching.
// ValueTable interns JSON values (small integers map to themselves, so no
// table entry is spent on them); SequenceTable interns sorted id sequences
// (sets, reader lists) for models whose state is a collection.
// Neither is thread-safe: one table per check.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

namespace locksmith {

class ValueTable {
 public:
  // Id of JSON null (nil), interned first.
  static constexpr int64_t kNull = 1;

  ValueTable();
  int64_t Intern(const nlohmann::json& value);
  nlohmann::json Value(int64_t id) const;
  // Short EDN-like text for verdicts: 3, nil, "a", [1 2].
  std::string Describe(int64_t id) const;
  size_t MemoryBytes() const { return bytes_; }

 private:
  std::vector<nlohmann::json> values_;
  std::unordered_map<std::string, int64_t> ids_;
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
