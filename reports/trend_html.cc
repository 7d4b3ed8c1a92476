#include "reports/trend_html.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <sstream>

#include "reports/escape.h"
#include "reports/report_assets.h"

namespace locksmith {
namespace {

constexpr double kPlotW = 240, kPlotH = 44, kPad = 4;

// The trend's own rules, after the report's stylesheet.
constexpr const char* kTrendCss = R"(
table.trend{border-collapse:collapse;background:#fff}
table.trend th,table.trend td{border-bottom:1px solid var(--line);padding:4px 10px;text-align:left;vertical-align:top}
table.trend td.cell{max-width:260px;word-break:break-word}
tr.regressed td.cell{border-left:4px solid var(--fail)}
svg.spark{display:block;overflow:visible}
svg.spark .band{fill:rgba(214,69,93,.16)}
svg.spark .line{fill:none;stroke:var(--fg);stroke-width:1.2}
svg.spark .p50{fill:none;stroke:var(--hold);stroke-width:1.2}
svg.spark .p99{fill:none;stroke:var(--info);stroke-width:1.2}
svg.spark .grants{fill:none;stroke:var(--ok);stroke-width:1.2}
svg.spark .doubt{fill:none;stroke:var(--info);stroke-width:1.2}
svg.spark .axis{stroke:var(--line)}
svg.spark circle.valid{fill:var(--ok)}svg.spark circle.invalid{fill:var(--fail)}
svg.spark circle.unknown{fill:var(--pending)}
svg.spark circle.reg{fill:none;stroke:var(--fail);stroke-width:1.6}
svg.spark .tick{stroke:var(--muted)}
.fig{font-size:12px;color:var(--muted)}
.fig b{color:var(--fg)}
ul.regressions li{margin:2px 0}
)";

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string Figure(const std::optional<double>& v, const char* format) {
  if (!v) return "–";
  char buf[64];
  std::snprintf(buf, sizeof buf, format, *v);
  return buf;
}

double X(size_t i, size_t n) {
  if (n <= 1) return kPlotW / 2;
  return kPad + static_cast<double>(i) * (kPlotW - 2 * kPad) / static_cast<double>(n - 1);
}

// Height of `v` on a plot whose top is `top` (0 at the bottom).
double Y(double v, double top) {
  const double share = top > 0 ? std::clamp(v / top, 0.0, 1.0) : 0;
  return kPlotH - kPad - share * (kPlotH - 2 * kPad);
}

// A cell's nights: its group on each night it ran, and what the rule said.
struct CellSeries {
  std::string cell, lock, schedule;
  std::vector<std::optional<RunGroup>> nights;
  std::vector<Regression> regressions;
  std::string why;  // the newest night's regression, said
};

std::vector<CellSeries> SeriesOf(const TrendSection& section) {
  std::vector<CellSeries> series;
  auto find = [&](const std::string& cell) -> CellSeries& {
    for (auto& s : series) {
      if (s.cell == cell) return s;
    }
    series.push_back({cell, "", "", std::vector<std::optional<RunGroup>>(section.nights.size()),
                      std::vector<Regression>(section.nights.size()), ""});
    return series.back();
  };
  // The newest night's cells first, in its order; then cells gone since.
  for (size_t i = section.nights.size(); i-- > 0;) {
    const SuiteRecord& record = section.nights[i].record;
    for (auto& [cell, group] : CellGroups(record)) {
      CellSeries& s = find(cell);
      s.nights[i] = group;
      if (s.lock.empty()) {
        for (const SuiteRun& run : record.runs) {
          if (run.cell == cell) s.lock = run.lock, s.schedule = run.schedule;
        }
      }
    }
  }
  for (CellSeries& s : series) {
    std::vector<RunGroup> earlier;
    std::optional<RunGroup> previous;
    for (size_t i = 0; i < s.nights.size(); ++i) {
      if (!s.nights[i]) continue;
      s.regressions[i] = JudgeRegression(earlier, *s.nights[i]);
      if (i + 1 == s.nights.size()) s.why = RegressionText(s.regressions[i], previous, *s.nights[i]);
      earlier.push_back(*s.nights[i]);
      previous = s.nights[i];
    }
  }
  return series;
}

void OpenPlot(std::ostringstream& h, const char* label) {
  h << "<svg class=\"spark\" width=\"" << kPlotW << "\" height=\"" << kPlotH
    << "\" role=\"img\" aria-label=\"" << label << "\"><line class=\"axis\" x1=\"0\" y1=\""
    << Num(kPlotH - kPad) << "\" x2=\"" << kPlotW << "\" y2=\"" << Num(kPlotH - kPad) << "\"/>";
}

// The violation rate night by night: its Wilson band, its line, a point per
// judged night (coloured by verdict, linking to the night's page, a ring
// when the rule flagged it).
void ViolationPlot(std::ostringstream& h, const CellSeries& s, const TrendSection& section) {
  const size_t n = s.nights.size();
  OpenPlot(h, "violation rate");
  std::string upper, lower, line;
  for (size_t i = 0; i < n; ++i) {
    if (!s.nights[i] || s.nights[i]->judged == 0) continue;
    const RunGroup& g = *s.nights[i];
    upper += Num(X(i, n)) + "," + Num(Y(g.rate.high, 1)) + " ";
    lower = Num(X(i, n)) + "," + Num(Y(g.rate.low, 1)) + " " + lower;
    line += Num(X(i, n)) + "," + Num(Y(double(g.violations) / g.judged, 1)) + " ";
  }
  if (!upper.empty()) {
    h << "<polygon class=\"band\" points=\"" << upper << lower << "\"/><polyline class=\"line\" "
      << "points=\"" << line << "\"/>";
  }
  for (size_t i = 0; i < n; ++i) {
    if (!s.nights[i]) continue;
    const RunGroup& g = *s.nights[i];
    const double rate = g.judged ? double(g.violations) / g.judged : 0;
    const SuiteNight& night = section.nights[i];
    if (!night.link.empty()) h << "<a href=\"" << HrefOfPath(night.link) << "\">";
    h << "<circle class=\"" << CellVerdict(g) << "\" cx=\"" << Num(X(i, n)) << "\" cy=\""
      << Num(Y(rate, 1)) << "\" r=\"2.2\"><title>" << HtmlEscape(night.label) << ": "
      << HtmlEscape(RateText(g)) << "</title></circle>";
    if (s.regressions[i].any()) {
      h << "<circle class=\"reg\" cx=\"" << Num(X(i, n)) << "\" cy=\"" << Num(Y(rate, 1))
        << "\" r=\"5\"/>";
    }
    if (!night.link.empty()) h << "</a>";
  }
  h << "</svg>";
}

// Lines of one figure each over the nights a cell ran, on a scale from 0 to
// the largest value drawn.
struct Line {
  const char* css;
  std::optional<double> RunGroup::*value;
};
double LinePlot(std::ostringstream& h, const CellSeries& s, std::initializer_list<Line> lines,
                const char* label) {
  const size_t n = s.nights.size();
  double top = 0;
  for (const Line& l : lines) {
    for (const auto& g : s.nights) {
      if (g && (*g).*l.value) top = std::max(top, *((*g).*l.value));
    }
  }
  OpenPlot(h, label);
  for (const Line& l : lines) {
    std::string points;
    for (size_t i = 0; i < n; ++i) {
      const auto& g = s.nights[i];
      if (g && (*g).*l.value) points += Num(X(i, n)) + "," + Num(Y(*((*g).*l.value), top)) + " ";
    }
    if (!points.empty()) h << "<polyline class=\"" << l.css << "\" points=\"" << points << "\"/>";
  }
  h << "</svg>";
  return top;
}

// The newest night a cell ran on.
const RunGroup* Newest(const CellSeries& s) {
  for (size_t i = s.nights.size(); i-- > 0;) {
    if (s.nights[i]) return &*s.nights[i];
  }
  return nullptr;
}

void CellRow(std::ostringstream& h, const CellSeries& s, const TrendSection& section) {
  const bool regressed = !s.why.empty();
  const RunGroup* now = Newest(s);
  const bool tonight = s.nights.back().has_value();
  h << "<tr class=\"cell" << (regressed ? " regressed" : "") << "\" data-cell=\""
    << HtmlEscape(s.cell) << "\"><td class=\"cell\"><b>" << HtmlEscape(s.cell) << "</b><br><small>"
    << HtmlEscape(s.lock) << "; " << HtmlEscape(s.schedule) << "</small>";
  if (regressed) {
    h << "<br><span class=\"badge invalid\">regressed</span> <small class=\"why\">"
      << HtmlEscape(s.why) << "</small>";
  } else if (!tonight) {
    h << "<br><small>not run on the newest night</small>";
  }
  h << "</td><td>";
  ViolationPlot(h, s, section);
  h << "<div class=\"fig\">newest: <b>" << HtmlEscape(now ? RateText(*now) : "") << "</b></div></td><td>";
  const double grants = LinePlot(h, s, {{"grants", &RunGroup::mean_grants_per_s}}, "grants per s");
  h << "<div class=\"fig\">newest <b>" << Figure(now->mean_grants_per_s, "%.1f")
    << "</b>, top " << Figure(grants, "%.1f") << "</div></td><td>";
  const double ms = LinePlot(h, s,
                             {{"p50", &RunGroup::median_acquire_p50_ms},
                              {"p99", &RunGroup::median_acquire_p99_ms}},
                             "time to acquire ms");
  h << "<div class=\"fig\">newest <b>" << Figure(now->median_acquire_p50_ms, "%.3g") << " / "
    << Figure(now->median_acquire_p99_ms, "%.3g ms") << "</b>, top " << Figure(ms, "%.3g ms")
    << "</div></td><td>";
  const double doubt = LinePlot(h, s, {{"doubt", &RunGroup::mean_in_doubt}}, "in doubt share");
  auto percent = [](std::optional<double> v) {
    return v ? Figure(*v * 100, "%.2f%%") : std::string("–");
  };
  h << "<div class=\"fig\">newest <b>" << percent(now->mean_in_doubt) << "</b>, top "
    << percent(doubt) << "</div></td></tr>\n";
}

// The nights as ticks over the first plot's column, each linking to its page.
void NightAxis(std::ostringstream& h, const TrendSection& section) {
  const size_t n = section.nights.size();
  h << "<tr class=\"nights\"><th>nights, oldest to newest</th><td colspan=\"4\">"
    << "<svg class=\"spark\" width=\"" << kPlotW << "\" height=\"14\" role=\"img\" "
    << "aria-label=\"nights\">";
  for (size_t i = 0; i < n; ++i) {
    const SuiteNight& night = section.nights[i];
    if (!night.link.empty()) h << "<a href=\"" << HrefOfPath(night.link) << "\">";
    h << "<line class=\"tick\" x1=\"" << Num(X(i, n)) << "\" y1=\"2\" x2=\"" << Num(X(i, n))
      << "\" y2=\"12\" stroke-width=\"3\"><title>" << HtmlEscape(night.label)
      << "</title></line>";
    if (!night.link.empty()) h << "</a>";
  }
  h << "</svg><small>" << HtmlEscape(section.nights.front().label) << " … "
    << HtmlEscape(section.nights.back().label) << "</small></td></tr>\n";
}

// One suite's table, and the cells its newest night regressed on; returns
// how many.
int Section(std::ostringstream& h, const TrendSection& section) {
  const std::vector<CellSeries> series = SeriesOf(section);
  std::vector<const CellSeries*> regressed;
  for (const auto& s : series) {
    if (!s.why.empty()) regressed.push_back(&s);
  }
  h << "<section class=\"trend\" data-suite=\"" << HtmlEscape(section.suite) << "\"><h2>suite "
    << HtmlEscape(section.suite) << ": " << section.nights.size() << " nights, "
    << series.size() << " cells</h2>\n";
  if (regressed.empty()) {
    h << "<p class=\"muted\">no cell regressed on the newest night</p>\n";
  } else {
    h << "<p class=\"bad\">" << regressed.size() << " cell" << (regressed.size() == 1 ? "" : "s")
      << " regressed on the newest night:</p><ul class=\"regressions\">";
    for (const CellSeries* s : regressed) {
      h << "<li><b>" << HtmlEscape(s->cell) << "</b>: " << HtmlEscape(s->why) << "</li>";
    }
    h << "</ul>\n";
  }
  h << "<table class=\"trend\"><tr><th>cell</th><th>violations, Wilson 95%</th>"
       "<th>grants per s</th><th>time to acquire p50 / p99</th><th>in doubt</th></tr>\n";
  NightAxis(h, section);
  for (const auto& s : series) CellRow(h, s, section);
  h << "</table></section>\n";
  return static_cast<int>(regressed.size());
}

}  // namespace

std::string RenderTrendPage(const std::vector<TrendSection>& sections) {
  std::ostringstream body;
  int regressed = 0;
  for (const TrendSection& section : sections) {
    if (!section.nights.empty()) regressed += Section(body, section);
  }
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>locksmith trend</title><style>"
    << ReportCss() << kTrendCss << "</style></head><body>\n<header class=\"run "
    << (regressed ? "invalid" : "valid") << "\"><div class=\"verdict\">"
    << (regressed ? "REGRESSED" : "NO REGRESSION") << "</div><div><h1>trend of "
    << sections.size() << " suite" << (sections.size() == 1 ? "" : "s") << "</h1><p class=\"muted\">"
    << "each cell night by night, newest on the right; a cell regressed when its violations "
       "rose beyond both Wilson intervals, or it was clean on every earlier night and is not "
       "on the newest. Each point links to its night's page.</p></div></header>\n<main>\n"
    << body.str() << "</main></body></html>\n";
  return h.str();
}

}  // namespace locksmith
