// The figures a suite's tables show for a group of its runs (a cell, or a
// lock under one schedule): violations with their Wilson 95% interval,
// medians and means of the runs' figures, and the worst exit code. Pure
// functions; thread-safe.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "reports/suite_run.h"

namespace locksmith {

// The severity order of exit codes: a crash (or bad input) beats invalid,
// which beats unknown, which beats valid. Returns the worst of `codes` (0
// when empty), as Jepsen's test-all does.
int WorstExitCode(const std::vector<int>& codes);

// Wilson score interval (95%) for k successes in n trials; {0, 0} for n = 0.
struct Interval {
  double low = 0;
  double high = 0;
};
Interval WilsonInterval(int k, int n);

// Runs that share a key (a cell, or a lock under one schedule), summed up.
struct RunGroup {
  int runs = 0;
  int judged = 0;      // valid or invalid: the runs a rate can count
  int violations = 0;  // invalid runs
  Interval rate;       // of violations among judged runs
  std::optional<double> median_first_violation_s;
  std::optional<double> mean_availability_inside, mean_availability_outside;
  std::optional<double> mean_answered_inside, mean_answered_outside;
  std::optional<double> median_acquire_p50_ms, median_acquire_p99_ms;
  std::optional<double> mean_grants_per_s, mean_in_doubt;
  std::optional<double> mean_unanswered_inside, mean_unanswered_outside;
};
RunGroup Summarize(const std::vector<const SuiteRun*>& runs);
// "3 of 10 invalid [11–60%]", or "no run judged".
std::string RateText(const RunGroup& g);
// Runs grouped by `key(run)`, the groups in first-seen order.
template <typename Key>
std::vector<std::pair<std::string, std::vector<const SuiteRun*>>> GroupSuiteRuns(
    const std::vector<SuiteRun>& runs, Key key) {
  std::vector<std::pair<std::string, std::vector<const SuiteRun*>>> groups;
  for (const auto& run : runs) {
    const std::string k = key(run);
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& g) { return g.first == k; });
    if (it == groups.end()) {
      groups.push_back({k, {}});
      it = groups.end() - 1;
    }
    it->second.push_back(&run);
  }
  return groups;
}
// The groups a suite's comparison has: one per schedule and lock.
std::string ScheduleAndLock(const SuiteRun& run);
// "12.3 ms" with `digits` decimals, or "–" when there is no figure.
std::string FixedOrDash(const std::optional<double>& v, int digits, const char* unit = "");

}  // namespace locksmith
