#include "base/text.h"

#include <cstdint>
#include <cstdio>
#include <utility>

namespace locksmith {

bool NaturalLess(const std::string& a, const std::string& b) {
  auto split = [](const std::string& s) {
    size_t i = s.size();
    while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9') --i;
    const bool numbered = i < s.size() && s.size() - i < 12;
    return std::make_pair(s.substr(0, i), numbered ? std::stoll(s.substr(i)) : -1LL);
  };
  auto sa = split(a), sb = split(b);
  return sa != sb ? sa < sb : a < b;
}

std::string FormatDurationNs(double ns) {
  char buf[64];
  const double a = ns < 0 ? -ns : ns;
  if (a >= 1e9) {
    std::snprintf(buf, sizeof buf, "%.3f s", ns / 1e9);
  } else if (a >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.3g ms", ns / 1e6);
  } else if (a >= 1e3) {
    std::snprintf(buf, sizeof buf, "%.3g \xC2\xB5s", ns / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f ns", ns);
  }
  return buf;
}

int64_t MillisToNs(double ms) {
  const double ns = ms * 1e6;
  if (!(ns == ns)) return 0;
  // 2^63 is exactly representable; anything at or past it saturates.
  if (ns >= 9223372036854775808.0) return INT64_MAX;
  if (ns <= -9223372036854775808.0) return INT64_MIN;
  return static_cast<int64_t>(ns);
}

std::string FirstLine(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

}  // namespace locksmith
