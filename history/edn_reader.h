// EdnReader: a tolerant reader for the EDN that Jepsen writes (histories,
// log values), mapping each form onto nlohmann::json so the rest of the
// checker sees one value type:
//   nil -> null, true/false -> bool, integers -> int (uint/double past int64),
//   floats, ratios and M decimals -> double, strings and characters -> string,
//   keywords -> string without the colon(s), symbols -> string,
//   vectors, lists and sets -> array, maps -> object (non-string keys are
//   written as their JSON text), tagged literals (#jepsen.history.Op{...},
//   #inst "...") -> the tagged form, #_ form and ^meta are skipped.
// It reads one form at a time and tracks the line, so callers can report
// FILE:LINE errors. Not thread-safe (one reader per text).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "base/utf8.h"

namespace locksmith {


class EdnReader {
 public:
  explicit EdnReader(std::string_view text) : text_(text) {}

  // Skips whitespace, commas, `;` comments and `#_` discarded forms.
  Status SkipIgnorable();
  bool AtEnd() const { return pos_ >= text_.size(); }
  // The next character; only valid when !AtEnd().
  char Peek() const { return text_[pos_]; }
  void Advance();
  // 1-based line of the current position.
  size_t line() const { return line_; }
  size_t position() const { return pos_; }

  // Reads the next form; the error message says what is wrong (the caller
  // adds the source name and line()).
  Result<nlohmann::json> ReadForm();

 private:
  Status SkipIgnorableAtDepth(int depth);
  Result<nlohmann::json> ReadFormAtDepth(int depth);
  Result<nlohmann::json> ReadCollection(char close, bool as_map, int depth);
  Result<nlohmann::json> ReadString();
  Result<nlohmann::json> ReadCharacter();
  std::string_view ReadToken();
  nlohmann::json TokenToJson(std::string_view token) const;

  std::string_view text_;
  size_t pos_ = 0;
  size_t line_ = 1;
};

}  // namespace locksmith
