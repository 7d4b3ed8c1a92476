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

// The length of the valid UTF-8 sequence starting at text[i] (1 to 4), or 0
// when the bytes there are not one. `i` must be less than text.size().
size_t Utf8SequenceLength(std::string_view text, size_t i);

}  // namespace locksmith
