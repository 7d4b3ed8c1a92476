#include "base/terminal_text.h"

#include <cstdint>
#include <cstdio>

#include "base/utf8.h"

namespace locksmith {
namespace {

// The code point of `bytes`, one valid UTF-8 sequence.
uint32_t CodePoint(std::string_view bytes) {
  const auto b = [&](size_t k) { return static_cast<uint8_t>(bytes[k]) & 0x3Fu; };
  const auto lead = static_cast<uint8_t>(bytes[0]);
  switch (bytes.size()) {
    case 1: return lead;
    case 2: return (lead & 0x1Fu) << 6 | b(1);
    case 3: return (lead & 0x0Fu) << 12 | b(1) << 6 | b(2);
    default: return (lead & 0x07u) << 18 | b(1) << 12 | b(2) << 6 | b(3);
  }
}

// Characters past ASCII that terminals act on or that reorder what follows.
bool IsFormatControl(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) ||      // C1 controls (CSI is U+009B)
         cp == 0x2028 || cp == 0x2029 ||     // line and paragraph separators
         (cp >= 0x202A && cp <= 0x202E) ||   // bidirectional embeddings, overrides
         (cp >= 0x2066 && cp <= 0x2069) ||   // bidirectional isolates
         cp == 0x200E || cp == 0x200F || cp == 0x061C;  // direction marks
}

void AppendEscape(std::string& out, const char* format, unsigned value) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, format, value);
  out += buffer;
}

}  // namespace

std::string TerminalSafe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto byte = static_cast<uint8_t>(text[i]);
    const size_t length = Utf8SequenceLength(text, i);
    if (length == 0) {
      AppendEscape(out, "\\x%02x", byte);
      ++i;
      continue;
    }
    if (length == 1) {
      if (byte == '\n') {
        out += "\\n";
      } else if (byte == '\r') {
        out += "\\r";
      } else if (byte == '\t') {
        out += "\\t";
      } else if (byte < 0x20 || byte == 0x7F) {
        AppendEscape(out, "\\x%02x", byte);
      } else {
        out += static_cast<char>(byte);
      }
      ++i;
      continue;
    }
    const std::string_view sequence = text.substr(i, length);
    if (const uint32_t cp = CodePoint(sequence); IsFormatControl(cp)) {
      AppendEscape(out, "\\u%04x", cp);
    } else {
      out += sequence;
    }
    i += length;
  }
  return out;
}

}  // namespace locksmith
