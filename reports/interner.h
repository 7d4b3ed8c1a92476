// Interner: gives each distinct string a small number, in first-seen order,
// so the report's columns hold numbers and the names travel once. Plain
// value, not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace locksmith {

class Interner {
 public:
  int32_t Id(const std::string& s) {
    auto [it, inserted] = ids_.try_emplace(s, static_cast<int32_t>(names_.size()));
    if (inserted) names_.push_back(s);
    return it->second;
  }
  // The names by number; the interner is empty afterwards.
  std::vector<std::string> Take() {
    ids_.clear();
    return std::move(names_);
  }

 private:
  std::unordered_map<std::string, int32_t> ids_;
  std::vector<std::string> names_;
};

}  // namespace locksmith
