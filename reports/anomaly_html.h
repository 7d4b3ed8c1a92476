// An anomaly of results.json as report.html shows it: a heading (type,
// class, key, checker, a button that shows its ops on the timeline), its
// story in words and a drawing (reports/anomaly_story.h, story_svg.h) with
// the fault that explains it, and the checker's record, its op references
// as chips the page's script highlights. Any checker's anomaly renders:
// what is not understood shows as a table of its fields. Pure; thread-safe.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "reports/report_model.h"

namespace locksmith {

// The anomaly numbered `number` (from 1), as <div class="anomaly">.
std::string RenderAnomaly(const nlohmann::json& anomaly, size_t number, const ReportModel& model);

}  // namespace locksmith
