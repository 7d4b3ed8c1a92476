#include "base/json_output.h"

#include <charconv>

namespace locksmith {
namespace {

// A string dump() writes as it is: printable ASCII without '"' and '\'.
bool IsPlain(const std::string& s) {
  for (const char c : s) {
    if (c < 0x20 || c > 0x7E || c == '"' || c == '\\') return false;
  }
  return true;
}

void AppendQuoted(const std::string& s, std::string* out) {
  out->push_back('"');
  out->append(s);
  out->push_back('"');
}

template <typename T>
void AppendInteger(T v, std::string* out) {
  char buf[24];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  (void)ec;  // 24 characters hold any 64-bit integer
  out->append(buf, end);
}

// Appends a scalar dump() writes plainly; false (nothing appended) for any
// other value.
bool AppendPlainScalar(const nlohmann::json& v, std::string* out) {
  switch (v.type()) {
    case nlohmann::json::value_t::null:
      out->append("null");
      return true;
    case nlohmann::json::value_t::boolean:
      out->append(v.get<bool>() ? "true" : "false");
      return true;
    case nlohmann::json::value_t::number_integer:
      AppendInteger(v.get<int64_t>(), out);
      return true;
    case nlohmann::json::value_t::number_unsigned:
      AppendInteger(v.get<uint64_t>(), out);
      return true;
    case nlohmann::json::value_t::string: {
      const auto& s = v.get_ref<const std::string&>();
      if (!IsPlain(s)) return false;
      AppendQuoted(s, out);
      return true;
    }
    default:
      return false;
  }
}

bool AppendPlain(const nlohmann::json& value, std::string* out) {
  if (!value.is_object()) return AppendPlainScalar(value, out);
  out->push_back('{');
  bool first = true;
  for (const auto& [key, v] : value.items()) {
    if (!IsPlain(key)) return false;
    if (!first) out->push_back(',');
    first = false;
    AppendQuoted(key, out);
    out->push_back(':');
    if (!AppendPlainScalar(v, out)) return false;
  }
  out->push_back('}');
  return true;
}

}  // namespace

void AppendCompactJson(const nlohmann::json& value, std::string* out) {
  const size_t start = out->size();
  // A flat object's text is rarely over 24 bytes an entry: one allocation.
  if (value.is_object()) out->reserve(start + 2 + 24 * value.size());
  if (AppendPlain(value, out)) return;
  out->resize(start);
  out->append(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace locksmith
