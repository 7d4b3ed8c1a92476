#include "reports/json_columns.h"

#include <nlohmann/json.hpp>

#include "reports/escape.h"

namespace locksmith {

std::vector<int64_t> Deltas(std::vector<int64_t> v, int64_t first) {
  for (size_t i = v.size(); i-- > 1;) v[i] -= v[i - 1];
  if (!v.empty()) v[0] -= first;
  return v;
}

void AppendTable(std::string* out, std::string_view name, const std::vector<PackedField>& fields) {
  out->push_back('"');
  out->append(name);
  out->append("\":\"");
  AppendPackedTable(out, fields);
  out->push_back('"');
}

void AppendStringArray(std::string* out, std::string_view name, const std::vector<std::string>& v) {
  out->push_back('"');
  out->append(name);
  out->append("\":");
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& s : v) arr.push_back(s);
  out->append(DumpJson(arr));
}

}  // namespace locksmith
