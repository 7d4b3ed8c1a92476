// Checker stats as tables for people: a stat's value with units from its
// name's suffix (_ms, _s, _ns, _bytes), shares as percents, big counts with
// separators; objects of objects as one table with a column per field;
// anything else as key / value rows, a few levels deep. Pure; thread-safe.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace locksmith {

// One stat's value (escaped), formatted by its name.
std::string FormatStat(const std::string& name, const nlohmann::json& v);
// `v` (a checker's stats, or part of them, named `name`) as markup.
std::string RenderStats(const nlohmann::json& v, const std::string& name, int depth);

}  // namespace locksmith
