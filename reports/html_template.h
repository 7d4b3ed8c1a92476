// The static parts of report.html, compiled into the binary so writing a
// report needs no file at run time: the stylesheet and the scripts
// (reports/assets/, see report_assets.h), and the colours of the fault
// lanes, which come from the report's data. Thread-safe (constants and pure
// functions).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "reports/fault_view.h"

namespace locksmith {

std::string_view HtmlReportCss();
// The page's scripts, in order, in one strict-mode function of their own:
// reads the <script id="report-data"> blob and draws timeline and plots.
const std::string& HtmlReportJs();
// ".fam-FAMILY{background:COLOR}" for each lane whose family name is a safe
// CSS class name and whose colour a hex colour (the rest keep the badge's
// neutral colour).
std::string LaneStyles(const std::vector<FaultLane>& lanes);

}  // namespace locksmith
