// Escaping for the report writers: HTML text/attributes, XML 1.0 text, and
// JSON embedded in an HTML <script> element. Every string from a history or
// a config is untrusted (keys, errors and values come from lock services and
// users), and may not even be valid UTF-8, so every function here first
// repairs the encoding. Pure functions, thread-safe.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/utf8.h"

namespace locksmith {

// Safe for element text and for quoted attribute values.
std::string HtmlEscape(std::string_view text);

// Safe for XML 1.0 text and attributes. Characters XML 1.0 cannot carry at all
// (control characters other than tab/newline/CR) become U+FFFD, because even
// a character reference to them makes the document ill-formed.
std::string XmlEscape(std::string_view text);

// An href for a relative path: bytes other than letters, digits, "-._~" and
// '/' are percent-encoded (a test name may hold '#', '?', '%' or spaces, and
// "javascript:x" becomes a path, "javascript%3Ax"), then the whole is
// HTML-escaped for the attribute.
std::string HrefOfPath(std::string_view path);

// `text` cut to at most `max` bytes at a UTF-8 character boundary, with
// "…" when cut (the escapers then have whole characters to work on).
std::string Truncated(std::string text, size_t max);

// Compact JSON that never throws on invalid UTF-8 (replaced by U+FFFD).
std::string DumpJson(const nlohmann::json& j, int indent = -1);

// Makes JSON text safe inside <script type="application/json">: every '<'
// becomes \u003c, so no "</script>" or "<!--" can end or confuse the element.
// Outside strings JSON never contains '<', so this is a pure re-encoding.
void EscapeJsonForScript(std::string* json);

}  // namespace locksmith
