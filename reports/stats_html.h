// Checker stats as tables for people. What a stat's number measures comes
// from its name, by one rule (StatUnitOf) that every table of the page
// follows: a duration's unit leaves the label for the value ("longest
// refused" 0 ms), a rate keeps "per s" in the label and shows a plain
// number, a share shows a percent, a count its separators; the values of an
// object named per_X read "... per X". Objects of objects are one table
// with a column per field; anything else is key / value rows, a few levels
// deep. Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace locksmith {

// What a stat named `name` measures.
enum class StatUnit {
  kCount,      // a number of things (a mean of them when not whole)
  kMillis,     // a duration or a time in the run, in ms ("..._ms")
  kNanos,      // ... in ns ("..._ns")
  kSeconds,    // ... in s ("..._s", "time")
  kPerSecond,  // a rate ("..._per_s")
  kShare,      // a fraction of a whole ("..._share", "..._rate", "availability", "answered")
  kBytes,      // "..._bytes"
};
StatUnit StatUnitOf(std::string_view name);
// The label of a stat for people: words, without the unit its value
// carries ("longest_refused_ms" -> "longest refused"). Not escaped.
std::string StatLabel(std::string_view name);

// One stat's value (escaped), formatted by its name.
std::string FormatStat(const std::string& name, const nlohmann::json& v);
// `v` (a checker's stats, or part of them, named `name`) as markup.
std::string RenderStats(const nlohmann::json& v, const std::string& name, int depth);

}  // namespace locksmith
