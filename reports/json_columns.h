// The report model's JSON writers for its big columns: integer arrays
// written straight into the output (no json values built per element),
// packed tables (reports/packed_table.h) as JSON strings, string arrays.
// Each appends `"name":value` (no separators around it). Pure; thread-safe.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "reports/packed_table.h"

namespace locksmith {

// "name":[1,2,3]; with `delta` each value minus the one before it.
template <typename T>
void AppendIntArray(std::string* out, std::string_view name, const std::vector<T>& v,
                    bool delta = false) {
  out->push_back('"');
  out->append(name);
  out->append("\":[");
  char buf[24];
  int64_t prev = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out->push_back(',');
    const auto x = static_cast<int64_t>(v[i]);
    auto r = std::to_chars(buf, buf + sizeof buf, delta ? x - prev : x);
    prev = x;
    out->append(buf, r.ptr);
  }
  out->push_back(']');
}

template <typename T>
std::vector<int64_t> Int64s(const std::vector<T>& v) {
  return std::vector<int64_t>(v.begin(), v.end());
}

// Each value minus the previous one; the first minus `first`.
std::vector<int64_t> Deltas(std::vector<int64_t> v, int64_t first = 0);

// "name":"<the packed table>"
void AppendTable(std::string* out, std::string_view name, const std::vector<PackedField>& fields);

// "name":["a","b"] (strings repaired to UTF-8).
void AppendStringArray(std::string* out, std::string_view name, const std::vector<std::string>& v);

}  // namespace locksmith
