#include "reports/debate_page.h"

#include <cstdio>
#include <sstream>

#include "base/text.h"
#include "reports/escape.h"
#include "reports/suite_report.h"

namespace locksmith {
namespace {

constexpr const char* kDebateStyle = R"(<style>
table.matrix td{min-width:120px}
.entry{border-left:4px solid #ccc;padding:2px 6px;margin:2px 0 6px;background:#fff}
.entry.agrees{border-color:#2a7}.entry.disagrees{border-color:#c33}
.entry.undecided,.entry.no-prediction{border-color:#d90}
.badge{font-weight:600}.agrees .badge{color:#185}.disagrees .badge{color:#b11}
.undecided .badge,.no-prediction .badge{color:#a60}
.cannot-run{color:#555;font-style:italic;font-size:12px;background:#f4f4f4;padding:2px 6px}
header .verdict{font-weight:700}
code{background:#f4f4f4;padding:1px 4px}
</style>)";

std::string ClassOf(const std::string& agreement) {
  return agreement == "no prediction" ? "no-prediction" : agreement;
}

std::string DurationText(const std::optional<double>& s) {
  return s ? FormatDurationNs(*s * 1e9) : "–";
}

std::string PredictionText(const std::string& verdict, const std::string& anomaly) {
  std::string text = DebateLetter(verdict);
  if (!anomaly.empty()) text += " (" + anomaly + ")";
  return text;
}

// One scenario in its box.
void WriteEntryBox(std::ostream& h, const DebateEntry& e) {
  h << "<div class=\"entry " << ClassOf(e.agreement) << "\" data-scenario=\""
    << HtmlEscape(e.scenario) << "\"><a href=\"#s-" << HtmlEscape(e.scenario) << "\">"
    << HtmlEscape(e.scenario) << "</a><br>predicted "
    << HtmlEscape(PredictionText(e.predicted_verdict, e.predicted_anomaly)) << "<br>"
    << HtmlEscape(DebateObservedText(e)) << "<br><span class=\"badge\">"
    << HtmlEscape(e.agreement) << "</span>";
  if (e.median_first_violation_s) {
    h << "<br><small>first violation after " << HtmlEscape(DurationText(e.median_first_violation_s))
      << " (median)</small>";
  }
  h << "</div>";
}

void WriteGrid(std::ostream& h, const DebateMatrix& m) {
  h << "<table class=\"matrix\"><tr><th>row</th><th>what happens</th>";
  for (const auto& c : m.columns) h << "<th>" << HtmlEscape(c) << "</th>";
  h << "</tr>\n";
  for (const auto& row : m.rows) {
    std::string what = row.empty() ? "no debate row" : "";
    for (const auto& r : m.shape.rows) {
      if (r.id == row) what = r.what;
    }
    h << "<tr class=\"row\" data-row=\"" << HtmlEscape(row) << "\"><th>"
      << HtmlEscape(row.empty() ? "—" : row) << "</th><td>" << HtmlEscape(what) << "</td>";
    for (const auto& column : m.columns) {
      h << "<td>";
      bool any = false;
      for (const auto& e : m.entries) {
        if (e.row != row || e.column != column) continue;
        WriteEntryBox(h, e);
        any = true;
      }
      for (const auto& c : m.shape.cannot_run) {
        if (any || c.row != row || c.column != column) continue;
        h << "<div class=\"cannot-run\">predicted " << DebateLetter(c.predicted)
          << "; cannot run: " << HtmlEscape(c.reason) << "</div>";
      }
      h << "</td>";
    }
    h << "</tr>\n";
  }
  h << "</table>\n";
}

void WriteScenario(std::ostream& h, const DebateEntry& e) {
  h << "<section class=\"scenario\" id=\"s-" << HtmlEscape(e.scenario) << "\"><h3>"
    << HtmlEscape(e.scenario) << " <small>row " << HtmlEscape(e.row.empty() ? "—" : e.row)
    << ", " << HtmlEscape(e.column) << "</small></h3>\n<p>predicted "
    << HtmlEscape(PredictionText(e.predicted_verdict, e.predicted_anomaly)) << "; observed "
    << HtmlEscape(DebateObservedText(e)) << " of " << e.planned << " planned";
  if (e.invalid_predicted_kind < e.invalid) {
    h << " (" << e.invalid_predicted_kind << " with the predicted kind)";
  }
  char length[32];
  std::snprintf(length, sizeof length, "%g", e.run_length_s);
  h << "; <span class=\"badge\">" << HtmlEscape(e.agreement) << "</span>; median time to the "
    << "first violation " << HtmlEscape(DurationText(e.median_first_violation_s))
    << "; runs of " << length << " s</p>\n";
  if (e.invalid_runs.empty()) return void(h << "</section>\n");
  h << "<ul class=\"invalid-runs\">\n";
  for (const auto& r : e.invalid_runs) {
    h << "<li>";
    if (!r.report.empty()) {
      h << "<a href=\"" << HrefOfPath(r.report) << "\">run #" << r.repeat << "</a>";
    } else {
      h << "run #" << r.repeat;
    }
    h << ", seed " << r.seed << ", first violation after "
      << HtmlEscape(DurationText(r.first_violation_s))
      << (r.predicted_kind ? "" : ", not the predicted kind") << ": <code>"
      << HtmlEscape(r.replay) << "</code></li>\n";
  }
  h << "</ul></section>\n";
}

// "12 agree, 1 disagrees, 2 undecided": the header's verdict.
std::string Tally(const DebateMatrix& m) {
  int agree = 0, disagree = 0, undecided = 0;
  for (const auto& e : m.entries) {
    agree += e.agreement == "agrees";
    disagree += e.agreement == "disagrees";
    undecided += e.agreement == "undecided";
  }
  return std::to_string(agree) + " agree, " + std::to_string(disagree) + " disagree, " +
         std::to_string(undecided) + " undecided";
}

}  // namespace

std::string RenderDebatePage(const DebateMatrix& m) {
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
       "<title>locksmith: the debate matrix</title>"
    << IndexPageStyle() << kDebateStyle << "</head><body>\n<header><h1>The debate matrix</h1>"
    << "<p class=\"verdict\">" << HtmlEscape(Tally(m)) << "</p><p>" << m.entries.size()
    << " scenarios, " << m.repeats << " runs each planned, suite seed " << m.seed;
  if (m.time_scale) h << ", time scale " << *m.time_scale;
  h << "; made by <code>" << HtmlEscape(m.command) << "</code></p></header>\n";
  h << "<p>Y: two clients can hold the lock at once (or the resource loses updates); N: they "
       "cannot. Each box: a scenario, its prediction, how many of its runs were invalid with "
       "the Wilson 95% interval, whether that agrees (a Y agrees once a run shows the "
       "predicted anomaly, an N while every run is judged valid), and the median time to the "
       "first violation.</p>\n";
  WriteGrid(h, m);
  h << "<h2>Scenarios and their invalid runs</h2>\n";
  for (const auto& e : m.entries) WriteScenario(h, e);
  h << "</body></html>\n";
  return h.str();
}

}  // namespace locksmith
