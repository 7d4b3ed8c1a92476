#include "reports/escape.h"

#include <cctype>
#include <cstdint>

namespace locksmith {
std::string HtmlEscape(std::string_view text) {
  std::string clean = SanitizeUtf8(text);
  std::string out;
  out.reserve(clean.size() + clean.size() / 8);
  for (char c : clean) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '\0': out += kUtf8Replacement; break;
      default: out += c;
    }
  }
  return out;
}

std::string XmlEscape(std::string_view text) {
  std::string clean = SanitizeUtf8(text);
  std::string out;
  out.reserve(clean.size() + clean.size() / 8);
  for (size_t i = 0; i < clean.size(); ++i) {
    const char c = clean[i];
    const auto u = static_cast<uint8_t>(c);
    switch (c) {
      case '&': out += "&amp;"; continue;
      case '<': out += "&lt;"; continue;
      case '>': out += "&gt;"; continue;
      case '"': out += "&quot;"; continue;
      case '\'': out += "&apos;"; continue;
      default: break;
    }
    if (u < 0x20 && c != '\t' && c != '\n' && c != '\r') {
      out += kUtf8Replacement;
      continue;
    }
    // U+FFFE and U+FFFF (EF BF BE / EF BF BF) are not XML characters either.
    if (u == 0xEF && i + 2 < clean.size() && static_cast<uint8_t>(clean[i + 1]) == 0xBF &&
        (static_cast<uint8_t>(clean[i + 2]) == 0xBE ||
         static_cast<uint8_t>(clean[i + 2]) == 0xBF)) {
      out += kUtf8Replacement;
      i += 2;
      continue;
    }
    out += c;
  }
  return out;
}

std::string HrefOfPath(std::string_view path) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return HtmlEscape(out);
}

std::string Truncated(std::string text, size_t max) {
  if (text.size() <= max) return text;
  while (max > 0 && (static_cast<unsigned char>(text[max]) & 0xC0) == 0x80) --max;
  return text.substr(0, max) + "\xE2\x80\xA6";
}

std::string DumpJson(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
}

void EscapeJsonForScript(std::string* json) {
  size_t count = 0;
  for (char c : *json) count += c == '<';
  if (count == 0) return;
  std::string out;
  out.reserve(json->size() + count * 5);
  for (char c : *json) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  json->swap(out);
}

}  // namespace locksmith
