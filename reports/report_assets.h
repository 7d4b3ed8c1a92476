// The files of reports/assets/, built into the binary: reports/CMakeLists.txt
// turns each into a generated source (embed_asset.cmake) defining its
// function here, rebuilt when the file changes. Thread-safe constants.
#pragma once

#include <string_view>

namespace locksmith {

std::string_view ReportCss();
// The index pages' style (reports/suite_index_html.h IndexPageStyle).
std::string_view IndexCss();
// The page's scripts, in the order they run (HtmlReportJs).
std::string_view ReportDataJs();
std::string_view DrawUtilJs();
std::string_view TimelineJs();
std::string_view FaultLanesJs();
std::string_view TimelineInputJs();
std::string_view PlotsJs();
std::string_view MainJs();

}  // namespace locksmith
