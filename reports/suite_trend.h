// SuiteTrend: a suite's nights side by side, from their summary.json alone
// (no run directory is read): each cell's violation rate with its Wilson 95%
// interval, grants per second, time to acquire p50 / p99 and the share of
// acquires in doubt, night by night; and the one regression rule that
// `locksmith compare` and the trend page share. Pure functions of their
// arguments; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reports/suite_report.h"

namespace locksmith {

// One night: a suite's summary and where its page is.
struct SuiteNight {
  std::string label;  // "2026-11-24 03:57:20 UTC", or the path it was read from
  std::string link;   // its index.html, relative to the page drawn; empty when none
  SuiteRecord record;
};

// One cell on one night: its runs summed up (absent when the night did not
// run the cell).
struct CellNight {
  bool present = false;
  RunGroup group;
};

// "invalid" (a violation), "valid" (every run judged valid) or "unknown".
std::string CellVerdict(const RunGroup& g);

// The regression rule, on the nights a cell was judged on (judged > 0;
// nights it was absent or not judged on say nothing), oldest first:
// - rate_rose: tonight's Wilson interval lies wholly above the interval of
//   the last earlier judged night (its low above that night's high: the two
//   intervals do not overlap);
// - newly_violating: tonight has a violation and every earlier judged night
//   had none (there is at least one such night: a cell with no history has
//   nothing to regress from).
// A night not judged (every run unknown or failed) never regresses: its
// verdict change is listed, not flagged.
struct Regression {
  bool rate_rose = false;
  bool newly_violating = false;
  bool any() const { return rate_rose || newly_violating; }
};
Regression JudgeRegression(const std::vector<RunGroup>& earlier, const RunGroup& tonight);
// "violations rose beyond both intervals: 0 of 10 [0–28%] -> 7 of 10 [40–89%]";
// empty when `r` is none.
std::string RegressionText(const Regression& r, const std::optional<RunGroup>& before,
                           const RunGroup& tonight);

// An acquire time that moved: by at least kAcquireChangeRatio either way
// and by at least kAcquireChangeMs (listed, never a regression: a loaded CI
// machine moves latencies without the lock getting worse).
inline constexpr double kAcquireChangeRatio = 1.25;
inline constexpr double kAcquireChangeMs = 0.5;
bool AcquireTimeChanged(const std::optional<double>& before, const std::optional<double>& now);

// A cell of the newest night against the nights before it.
struct CellChange {
  std::string cell;
  std::optional<RunGroup> before;  // the previous night's; absent when it did not run the cell
  std::optional<RunGroup> now;     // tonight's; absent when tonight did not run it
  std::vector<std::string> changes;  // "verdict valid -> invalid", "acquire p99 2.1 ms -> 9.8 ms"
  Regression regression;
  std::string why;  // RegressionText
};

// The cells of `nights`' newest whose verdict, violations or acquire times
// differ from the night before it, and cells added or gone, in the newest
// night's cell order then the gone ones; the regression rule judged over
// every night given (two nights: the one earlier night is the history).
// Fewer than two nights: nothing to compare.
std::vector<CellChange> CompareNights(const std::vector<const SuiteRecord*>& nights);

// Each cell of `record` summed up, in the record's cell order (cells with no
// run left out).
std::vector<std::pair<std::string, RunGroup>> CellGroups(const SuiteRecord& record);

}  // namespace locksmith
