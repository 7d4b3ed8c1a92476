#include "nemesis/fault_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace locksmith {

std::string JsonText(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string StringField(const nlohmann::json& j, const char* name) {
  if (!j.is_object()) return "";
  auto it = j.find(name);
  if (it == j.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : JsonText(*it);
}

const nlohmann::json* NumberField(const nlohmann::json& j, const char* name) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(name);
  return it != j.end() && it->is_number() ? &*it : nullptr;
}

bool IsClientHost(const std::string& host) {
  return host.size() > 1 && host[0] == 'c' &&
         std::all_of(host.begin() + 1, host.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string CompactNames(std::vector<std::string> names) {
  std::sort(names.begin(), names.end(), NaturalLess);
  auto numbered_client = [&](size_t i) { return IsClientHost(names[i]) && names[i].size() < 12; };
  std::string out;
  for (size_t i = 0; i < names.size();) {
    size_t j = i;
    if (numbered_client(i)) {
      while (j + 1 < names.size() && numbered_client(j + 1) &&
             std::stoll(names[j + 1].substr(1)) == std::stoll(names[j].substr(1)) + 1) {
        ++j;
      }
    }
    out += (out.empty() ? "" : " ") + names[i];
    if (j > i + 1) out += "\xE2\x80\x93" + names[j];  // an en dash
    if (j == i + 1) out += " " + names[j];
    i = j + 1;
  }
  return out;
}

std::string JoinStrings(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (const auto& s : parts) out += (out.empty() ? "" : separator) + s;
  return out;
}

std::string ShortText(std::string text, size_t max) {
  if (text.size() <= max) return text;
  while (max > 0 && (static_cast<unsigned char>(text[max]) & 0xC0) == 0x80) --max;
  return text.substr(0, max) + "\xE2\x80\xA6";
}

std::string FormatOffsetMs(double ms) {
  char buf[32];
  const double a = std::fabs(ms);
  if (a >= 1000) {
    std::snprintf(buf, sizeof buf, "%+.3g s", ms / 1000);
  } else if (a >= 1) {
    std::snprintf(buf, sizeof buf, "%+.3g ms", ms);
  } else {
    std::snprintf(buf, sizeof buf, "%+.2f ms", ms);
  }
  return buf;
}

std::string DurationText(double ms) { return FormatDurationNs(ms * 1e6); }

std::string ClientHitText(const nlohmann::json& value) {
  std::string out;
  if (auto p = NumberField(value, "process")) out += " p" + JsonText(*p);
  if (std::string key = StringField(value, "key"); !key.empty()) out += " holding " + key;
  return out;
}

}  // namespace locksmith
