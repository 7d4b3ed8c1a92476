#include "reports/suite_trend.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace locksmith {
namespace {

std::string Ms(const std::optional<double>& v) {
  if (!v) return "none";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g ms", *v);
  return buf;
}

std::optional<RunGroup> GroupOf(const std::vector<std::pair<std::string, RunGroup>>& groups,
                                const std::string& cell) {
  for (const auto& [name, g] : groups) {
    if (name == cell) return g;
  }
  return std::nullopt;
}

// What moved between two nights of one cell.
std::vector<std::string> ChangesOf(const RunGroup& before, const RunGroup& now) {
  std::vector<std::string> changes;
  if (CellVerdict(before) != CellVerdict(now)) {
    changes.push_back("verdict " + CellVerdict(before) + " -> " + CellVerdict(now));
  }
  const bool rate_moved = before.judged != now.judged || before.violations != now.violations;
  if (rate_moved && (before.judged > 0 || now.judged > 0)) {
    changes.push_back("violations " + RateText(before) + " -> " + RateText(now));
  }
  if (AcquireTimeChanged(before.median_acquire_p50_ms, now.median_acquire_p50_ms)) {
    changes.push_back("acquire p50 " + Ms(before.median_acquire_p50_ms) + " -> " +
                      Ms(now.median_acquire_p50_ms));
  }
  if (AcquireTimeChanged(before.median_acquire_p99_ms, now.median_acquire_p99_ms)) {
    changes.push_back("acquire p99 " + Ms(before.median_acquire_p99_ms) + " -> " +
                      Ms(now.median_acquire_p99_ms));
  }
  return changes;
}

}  // namespace

std::string CellVerdict(const RunGroup& g) {
  return g.violations > 0 ? "invalid" : g.runs > 0 && g.judged == g.runs ? "valid" : "unknown";
}

Regression JudgeRegression(const std::vector<RunGroup>& earlier, const RunGroup& tonight) {
  Regression r;
  if (tonight.judged == 0) return r;
  const RunGroup* last = nullptr;
  bool clean_before = true;
  for (const RunGroup& g : earlier) {
    if (g.judged == 0) continue;
    last = &g;
    clean_before = clean_before && g.violations == 0;
  }
  if (last == nullptr) return r;
  const Interval now = WilsonInterval(tonight.violations, tonight.judged);
  const Interval then = WilsonInterval(last->violations, last->judged);
  r.rate_rose = now.low > then.high;
  r.newly_violating = tonight.violations > 0 && clean_before;
  return r;
}

std::string RegressionText(const Regression& r, const std::optional<RunGroup>& before,
                           const RunGroup& tonight) {
  if (!r.any()) return "";
  std::string text;
  if (r.newly_violating) text = "violations on a cell clean on every earlier night";
  if (r.rate_rose) {
    text += std::string(text.empty() ? "" : "; ") + "violations rose beyond both intervals";
  }
  text += ": " + (before ? RateText(*before) : std::string("not run")) + " -> " +
          RateText(tonight);
  return text;
}

bool AcquireTimeChanged(const std::optional<double>& before, const std::optional<double>& now) {
  if (!before || !now) return before.has_value() != now.has_value();
  const double low = std::min(*before, *now), high = std::max(*before, *now);
  return high - low >= kAcquireChangeMs && high >= low * kAcquireChangeRatio;
}

std::vector<std::pair<std::string, RunGroup>> CellGroups(const SuiteRecord& record) {
  std::vector<std::string> order = record.cells;
  for (const SuiteRun& run : record.runs) {
    if (std::find(order.begin(), order.end(), run.cell) == order.end()) order.push_back(run.cell);
  }
  std::vector<std::pair<std::string, RunGroup>> groups;
  for (const std::string& cell : order) {
    std::vector<const SuiteRun*> of;
    for (const SuiteRun& run : record.runs) {
      if (run.cell == cell) of.push_back(&run);
    }
    if (!of.empty()) groups.emplace_back(cell, Summarize(of));
  }
  return groups;
}

std::vector<CellChange> CompareNights(const std::vector<const SuiteRecord*>& nights) {
  std::vector<CellChange> out;
  if (nights.size() < 2) return out;
  std::vector<std::vector<std::pair<std::string, RunGroup>>> groups;
  for (const SuiteRecord* night : nights) groups.push_back(CellGroups(*night));
  const auto& now = groups.back();
  const auto& before = groups[groups.size() - 2];
  std::vector<std::string> cells;
  for (const auto& [cell, _] : now) cells.push_back(cell);
  for (const auto& [cell, _] : before) {
    if (!GroupOf(now, cell)) cells.push_back(cell);
  }
  for (const std::string& cell : cells) {
    CellChange c;
    c.cell = cell;
    c.before = GroupOf(before, cell);
    c.now = GroupOf(now, cell);
    if (!c.before) {
      c.changes.push_back("new cell: " + RateText(*c.now));
    } else if (!c.now) {
      c.changes.push_back("not run tonight (was " + RateText(*c.before) + ")");
    } else {
      c.changes = ChangesOf(*c.before, *c.now);
    }
    if (c.now) {
      std::vector<RunGroup> earlier;
      for (size_t i = 0; i + 1 < groups.size(); ++i) {
        if (auto g = GroupOf(groups[i], cell)) earlier.push_back(*g);
      }
      c.regression = JudgeRegression(earlier, *c.now);
      c.why = RegressionText(c.regression, c.before, *c.now);
    }
    if (!c.changes.empty() || c.regression.any()) out.push_back(std::move(c));
  }
  return out;
}

}  // namespace locksmith
