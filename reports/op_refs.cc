#include "reports/op_refs.h"

#include "base/text.h"

namespace locksmith {

bool IsOpRef(const nlohmann::json& j) {
  if (!j.is_object()) return false;
  auto index = j.find("index");
  auto type = j.find("type");
  auto f = j.find("f");
  return index != j.end() && index->is_number_integer() && type != j.end() && type->is_string() &&
         f != j.end() && f->is_string();
}

void CollectOpIndices(const nlohmann::json& j, std::set<int64_t>* out) {
  if (IsOpRef(j)) out->insert(j["index"].get<int64_t>());
  if (j.is_object() || j.is_array()) {
    for (const auto& child : j) CollectOpIndices(child, out);
  }
}

int64_t RefTime(const nlohmann::json& j) {
  if (!IsOpRef(j)) return -1;
  auto t = j.find("time");
  return t != j.end() && t->is_number_integer() ? t->get<int64_t>() : -1;
}

void CollectRefTimes(const nlohmann::json& j, std::vector<int64_t>* times,
                     std::vector<int64_t>* processes) {
  if (IsOpRef(j)) {
    auto t = j.find("time");
    if (t != j.end() && t->is_number_integer()) times->push_back(t->get<int64_t>());
    if (auto p = j.find("process"); p != j.end() && p->is_number_integer()) {
      processes->push_back(p->get<int64_t>());
    }
  }
  if (j.is_object() || j.is_array()) {
    for (const auto& child : j) CollectRefTimes(child, times, processes);
  }
}

int64_t NanosecondsOf(const nlohmann::json& number) {
  if (number.is_number_integer()) return number.get<int64_t>();
  return number.is_number() ? MillisToNs(number.get<double>() / 1e6) : 0;
}

}  // namespace locksmith
