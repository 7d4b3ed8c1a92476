#include "reports/html_text.h"

#include <algorithm>
#include <cstdio>

#include "reports/escape.h"

namespace locksmith {

std::string VerdictClass(Validity v) {
  switch (v) {
    case Validity::kTrue: return "valid";
    case Validity::kFalse: return "invalid";
    case Validity::kUnknown: return "unknown";
  }
  return "unknown";
}

std::string FieldText(const nlohmann::json& j, const char* name) {
  if (!j.is_object()) return "";
  auto it = j.find(name);
  if (it == j.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : DumpJson(*it);
}

bool FieldFlag(const nlohmann::json& j, const char* name) {
  if (!j.is_object()) return false;
  auto it = j.find(name);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

int64_t FieldCount(const nlohmann::json& j, const char* name) {
  if (!j.is_object()) return 0;
  auto it = j.find(name);
  if (it == j.end()) return 0;
  if (it->is_number_unsigned()) {
    return static_cast<int64_t>(std::min<uint64_t>(it->get<uint64_t>(), INT64_MAX));
  }
  return it->is_number_integer() ? it->get<int64_t>() : 0;
}

std::string WithThousands(int64_t v) {
  std::string digits = std::to_string(v < 0 ? -v : v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (v < 0 ? "-" : "") + out;
}

std::string Percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * share);
  return buf;
}

std::string ProcessName(int64_t process) { return "p" + std::to_string(process); }

std::string FamilyBadge(const std::string& family, const std::string& label) {
  return "<span class=\"fam fam-" + HtmlEscape(family) + "\">" + HtmlEscape(label) + "</span>";
}

}  // namespace locksmith
