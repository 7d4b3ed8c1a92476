// UTF-8 repair for text taken from input (histories, Jepsen files, lock
// service errors): nlohmann::json throws when it dumps invalid UTF-8, and
// reports must never break on it. Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace locksmith {

// U+FFFD, the replacement character, as UTF-8.
inline constexpr std::string_view kUtf8Replacement = "\xEF\xBF\xBD";

// Replaces each byte sequence that is not valid UTF-8 (overlong forms and
// surrogates included) with U+FFFD.
std::string SanitizeUtf8(std::string_view text);

}  // namespace locksmith
