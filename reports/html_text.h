// Small pieces of report.html's markup the page's sections share: verdict
// classes, fields of results.json as text, numbers for people, a fault
// family's badge. Every string is escaped here or by the caller as each
// says. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "checker/checker.h"

namespace locksmith {

// "valid", "invalid" or "unknown": the CSS class of a verdict.
std::string VerdictClass(Validity v);
// `name` of an object as text (a string as it is, anything else as JSON);
// empty when absent or null. Not escaped.
std::string FieldText(const nlohmann::json& j, const char* name);
// `name` of an object when it is true; false when absent or of another type.
bool FieldFlag(const nlohmann::json& j, const char* name);
// `name` of an object when it is a whole number; 0 when absent or not one.
int64_t FieldCount(const nlohmann::json& j, const char* name);
// "1,234,567".
std::string WithThousands(int64_t v);
// "12.5%" of a share in [0, 1].
std::string Percent(double share);
// "p3".
std::string ProcessName(int64_t process);
// <span class="fam fam-FAMILY">LABEL</span>: coloured by the page's lane
// styles (LaneStyles in reports/html_template.h). Escaped.
std::string FamilyBadge(const std::string& family, const std::string& label);

}  // namespace locksmith
