#include "base/json_text.h"

#include <charconv>

namespace locksmith {
namespace {

// A string dump writes as it is: printable ASCII without '"' or '\\'.
bool Plain(const std::string& s) {
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

template <typename Int>
void AppendInt(Int v, std::string* out) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
  out->append(digits, end);
}

// The flat object's text into `*out`; false (with `*out` in any state) when
// a member is anything else.
bool FlatObjectText(const nlohmann::json& object, std::string* out) {
  out->clear();
  out->push_back('{');
  bool first = true;
  for (const auto& [name, v] : object.items()) {
    if (!Plain(name)) return false;
    if (!first) out->push_back(',');
    first = false;
    AppendQuoted(name, out);
    out->push_back(':');
    switch (v.type()) {
      case nlohmann::json::value_t::string: {
        const auto& s = v.get_ref<const std::string&>();
        if (!Plain(s)) return false;
        AppendQuoted(s, out);
        break;
      }
      case nlohmann::json::value_t::number_integer:
        AppendInt(v.get<int64_t>(), out);
        break;
      case nlohmann::json::value_t::number_unsigned:
        AppendInt(v.get<uint64_t>(), out);
        break;
      case nlohmann::json::value_t::boolean:
        out->append(v.get<bool>() ? "true" : "false");
        break;
      case nlohmann::json::value_t::null:
        out->append("null");
        break;
      default:
        return false;
    }
  }
  out->push_back('}');
  return true;
}

}  // namespace

void CompactJsonText(const nlohmann::json& value, std::string* out) {
  if (value.is_object() && FlatObjectText(value, out)) return;
  *out = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace locksmith
