// The drawing beside an anomaly's story: its holds on a shared time axis,
// each a bar (brown past its lease end, which a dashed line marks), the
// overlap in red, the explaining fault shaded and named by its lane, the
// read / write marks as ticks, seconds from the run's start below. Pure;
// thread-safe.
#pragma once

#include <string>

#include "reports/report_model.h"

namespace locksmith {

// Empty when the story has no holds.
std::string StorySvg(const ReportModel& model, const AnomalyStory& story);

}  // namespace locksmith
