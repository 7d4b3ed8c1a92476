#include "reports/html_template.h"

#include <cctype>

#include "reports/report_assets.h"

namespace locksmith {
namespace {

// A letter, then letters, digits, '-' or '_': a class name CSS reads as it is.
bool IsPlainClassName(const std::string& name) {
  if (name.empty() || name.size() > 64 || !std::isalpha(static_cast<unsigned char>(name[0]))) {
    return false;
  }
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  }
  return true;
}

}  // namespace

std::string_view HtmlReportCss() { return ReportCss(); }

const std::string& HtmlReportJs() {
  static const std::string kJs = [] {
    std::string js = "(function () {\n'use strict';\n";
    for (std::string_view part : {ReportDataJs(), DrawUtilJs(), TimelineJs(), FaultLanesJs(),
                                  TimelineInputJs(), PlotsJs(), MainJs()}) {
      js += part;
      js += '\n';
    }
    return js + "})();\n";
  }();
  return kJs;
}

std::string LaneStyles(const std::vector<FaultLane>& lanes) {
  std::string css;
  for (const FaultLane& lane : lanes) {
    if (!IsPlainClassName(lane.family) || !IsHexColor(lane.look.color)) continue;
    css += ".fam-" + lane.family + "{background:" + lane.look.color + "}";
  }
  return css;
}

}  // namespace locksmith
