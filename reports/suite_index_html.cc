#include "reports/suite_index_html.h"

#include <sstream>
#include <vector>

#include "reports/escape.h"
#include "reports/html_text.h"
#include "reports/report_assets.h"
#include "reports/suite_stats.h"

namespace locksmith {

std::string IndexPageStyle() { return "<style>\n" + std::string(IndexCss()) + "</style>"; }

namespace {

std::string DashOrPercent(const std::optional<double>& v) { return v ? Percent(*v) : "–"; }

// The table class of a group: any violation, all judged valid, or undecided.
const char* GroupClass(const RunGroup& g) {
  return g.violations ? "invalid" : g.judged == g.runs ? "valid" : "unknown";
}

// What each column of the comparison means, under the table.
const char* ComparisonLegend() {
  return R"(<dl class="legend">
<dt>grants/s</dt><dd>locks granted per second of the run, over all clients and keys.</dd>
<dt>time to acquire</dt><dd>p50 / p99 from asking for the lock to holding it, the wait for a lock another client holds included: every lock gets the same acquire, one that waits up to the run's acquire wait (try-lock clients retry with a jittered pause, queueing clients wait their turn).</dd>
<dt>in doubt</dt><dd>the share of acquires with no definite answer (a timeout or a lost connection): the lock may or may not have been taken.</dd>
<dt>failed, no answer</dt><dd>the share of acquires that gave up because the service did not answer on the lock (nothing could be sent, no master), of those begun inside fault windows / outside them; an acquire that gave up because the lock stayed held for its whole wait is not counted.</dd>
<dt>violations</dt><dd>runs judged invalid (two holders at once, or a history no legal order explains) of the runs judged, with the Wilson 95% interval.</dd>
</dl>
)";
}

// The comparison a team choosing a lock service reads: each lock setting
// under each workload and faults, side by side, one row each.
void ComparisonTable(const SuiteRecord& suite, std::ostringstream& h) {
  h << "<h2>comparison</h2>\n<table class=\"comparison\"><tr><th>workload, faults</th>"
       "<th>lock</th><th>grants/s</th><th>time to acquire p50 / p99</th><th>in doubt</th>"
       "<th>failed, no answer: in / out of faults</th><th>violations</th></tr>\n";
  for (const auto& [key, of] :
       GroupSuiteRuns(suite.runs, ScheduleAndLock)) {
    const RunGroup g = Summarize(of);
    h << "<tr><td>" << HtmlEscape(of.front()->schedule) << "</td><td>"
      << HtmlEscape(of.front()->lock) << "</td><td>" << FixedOrDash(g.mean_grants_per_s, 1)
      << "</td><td>" << FixedOrDash(g.median_acquire_p50_ms, 1) << " / "
      << FixedOrDash(g.median_acquire_p99_ms, 1, " ms") << "</td><td>"
      << DashOrPercent(g.mean_in_doubt)
      << "</td><td>" << DashOrPercent(g.mean_unanswered_inside) << " / "
      << DashOrPercent(g.mean_unanswered_outside) << "</td><td class=\"" << GroupClass(g) << "\">"
      << HtmlEscape(RateText(g)) << "</td></tr>\n";
  }
  h << "</table>\n" << ComparisonLegend();
}

void CellsTable(const SuiteRecord& suite, std::ostringstream& h) {
  h << "<h2>cells</h2>\n<table><tr><th>cell</th><th>lock</th><th>workload, faults</th>"
       "<th>violations</th><th>median time to first violation</th><th>availability in / out "
       "of faults</th><th>acquire p50</th></tr>\n";
  const auto by_cell = [](const SuiteRun& r) { return r.cell; };
  for (const auto& [cell, of] : GroupSuiteRuns(suite.runs, by_cell)) {
    const RunGroup g = Summarize(of);
    h << "<tr class=\"" << GroupClass(g) << "\"><td>" << HtmlEscape(cell) << "</td><td>"
      << HtmlEscape(of.front()->lock) << "</td><td>" << HtmlEscape(of.front()->schedule)
      << "</td><td>" << HtmlEscape(RateText(g)) << "</td><td>"
      << FixedOrDash(g.median_first_violation_s, 2, " s") << "</td><td>"
      << DashOrPercent(g.mean_availability_inside) << " / "
      << DashOrPercent(g.mean_availability_outside)
      << "</td><td>" << FixedOrDash(g.median_acquire_p50_ms, 2, " ms") << "</td></tr>\n";
  }
  h << "</table>\n";
}

void RunsTable(const SuiteRecord& suite, std::ostringstream& h) {
  h << "<h2>runs</h2>\n<table><tr><th>cell</th><th>#</th><th>seed</th><th>verdict</th>"
       "<th>anomalies</th><th>faults observed / planned</th><th>first violation</th>"
       "<th>availability in / out</th><th>acquire p50 / p99</th><th>ops/s</th><th>report</th>"
       "</tr>\n";
  for (const auto& r : suite.runs) {
    h << "<tr class=\"" << HtmlEscape(r.verdict) << "\"><td>" << HtmlEscape(r.cell) << "</td><td>"
      << r.repeat << "</td><td>" << r.seed << "</td><td>" << HtmlEscape(r.verdict);
    if (!r.error.empty()) h << "<br><small>" << HtmlEscape(r.error) << "</small>";
    h << "</td><td>" << HtmlEscape(SuiteRunAnomalyText(r)) << "</td><td>"
      << (r.faults.empty() ? "-" : HtmlEscape(r.faults)) << "</td><td>"
      << FixedOrDash(r.first_violation_s, 2, " s") << "</td><td>"
      << DashOrPercent(r.availability_inside)
      << " / " << DashOrPercent(r.availability_outside) << "</td><td>"
      << FixedOrDash(r.acquire_p50_ms, 2) << " / " << FixedOrDash(r.acquire_p99_ms, 2, " ms")
      << "</td><td>"
      << FixedOrDash(r.ops_per_s, 0) << "</td><td>";
    if (!r.dir.empty()) {
      h << "<a href=\"" << HrefOfPath(r.dir + "/report.html") << "\">report</a>";
    }
    h << "</td></tr>\n";
  }
  h << "</table>\n";
}

}  // namespace

std::string RenderSuiteIndex(const SuiteRecord& suite) {
  std::ostringstream h;
  std::vector<int> codes;
  for (const auto& r : suite.runs) codes.push_back(r.exit_code);
  h << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>suite "
    << HtmlEscape(suite.name) << "</title>" << IndexPageStyle() << "</head><body>\n"
    << "<h1>suite " << HtmlEscape(suite.name) << "</h1>\n";
  if (!suite.description.empty()) h << "<p>" << HtmlEscape(suite.description) << "</p>\n";
  h << "<p>" << suite.runs.size() << " of " << suite.planned_runs << " runs, seed "
    << suite.seed << ", exit code " << WorstExitCode(codes) << "</p>\n";
  if (!suite.interrupted.empty()) {
    h << "<p class=\"unknown\">interrupted: " << HtmlEscape(suite.interrupted) << "</p>\n";
  }
  ComparisonTable(suite, h);
  CellsTable(suite, h);
  RunsTable(suite, h);
  h << "</body></html>\n";
  return h.str();
}

}  // namespace locksmith
