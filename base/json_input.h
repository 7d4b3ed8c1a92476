// ParseJsonInput: the one way locksmith parses JSON that someone else wrote
// (config, suite and scenario files, history lines, a run's results.json and
// config.json, a suite's summary.json, --initial). Nesting is bounded, as the
// EDN reader's is: every tree locksmith walks, copies or prints recurses, so
// a value nested 100,000 deep would overflow the stack; here it is one line
// of error instead. A number beyond a double's range is an error naming its
// key, never an exception. Pure; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace locksmith {

// The deepest nesting of arrays and objects accepted (the EDN reader's too).
inline constexpr int kMaxJsonDepth = 200;

// Whether // and /* */ comments may appear (config, suite and scenario files).
enum class JsonComments { kRefused, kAllowed };

// One JSON value. Errors are one line without the source's name:
// "not valid JSON: line 3, column 9: <reason>" (cut short),
// "\"hold[1]\": the number -1e999 is out of range (...)", or
// "arrays and objects nest more than 200 deep".
Result<nlohmann::json> ParseJsonInput(std::string_view text,
                                      JsonComments comments = JsonComments::kRefused);

// ReadInputFile (base/input_file.h: a regular file of at most `max_bytes`),
// then ParseJsonInput. Errors name the path ("PATH: not valid JSON: ...",
// "PATH is empty").
Result<nlohmann::json> ReadJsonInputFile(const std::string& path, uint64_t max_bytes,
                                         JsonComments comments = JsonComments::kRefused);

// A value quoted in an error message: its JSON text (invalid UTF-8
// replaced), cut to `max_chars` characters with "..." after, so a 50 MB form
// does not make a 50 MB line.
std::string JsonExcerpt(const nlohmann::json& value, size_t max_chars = 200);

}  // namespace locksmith
