// The static parts of report.html (stylesheet and script), compiled into the
// binary so writing a report needs no file at runtime. Thread-safe constants.
#pragma once

#include <string_view>

namespace locksmith {

std::string_view HtmlReportCss();
// Reads the <script id="report-data"> blob and draws timeline and plots.
std::string_view HtmlReportJs();

}  // namespace locksmith
