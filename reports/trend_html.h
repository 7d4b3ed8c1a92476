// TrendPage: trend.html, a suite's nights side by side (`locksmith trend`):
// one row per cell, one small plot per figure (the violation rate with its
// Wilson 95% band, grants per second, time to acquire p50 / p99, the share
// in doubt), oldest night on the left, newest on the right, each night's
// point and tick linking to that night's index.html. Cells the regression
// rule flags (reports/suite_trend.h) are marked: the newest night's in the
// row and the page's header, an earlier night's as a ring on its point.
// Self-contained (the report's stylesheet inline, no script), drawn from the
// summaries alone, its size bounded: at most kMaxTrendNights nights per
// suite (the newest), a few hundred bytes per night and cell. Pure
// rendering; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "reports/suite_trend.h"

namespace locksmith {

inline constexpr size_t kMaxTrendNights = 400;

// One suite's nights, oldest first.
struct TrendSection {
  std::string suite;
  std::vector<SuiteNight> nights;
};

std::string RenderTrendPage(const std::vector<TrendSection>& sections);

}  // namespace locksmith
