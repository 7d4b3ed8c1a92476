#include "reports/html_report.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <string_view>

#include "base/atomic_file.h"
#include "checker/availability.h"
#include "checker/checker.h"
#include "history/history_log.h"
#include "reports/anomaly_html.h"
#include "reports/escape.h"
#include "reports/fault_ledger_html.h"
#include "reports/fault_tables_html.h"
#include "reports/html_template.h"
#include "reports/html_text.h"
#include "reports/run_results.h"
#include "reports/run_summary.h"
#include "reports/stats_html.h"

namespace locksmith {
namespace {

std::string Num(int64_t v) { return std::to_string(v); }
std::string Num(size_t v) { return std::to_string(v); }

// True when `text` holds `lower_needle` in any letter case.
bool ContainsIgnoringCase(std::string_view text, std::string_view lower_needle) {
  auto same = [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; };
  return std::search(text.begin(), text.end(), lower_needle.begin(), lower_needle.end(), same) !=
         text.end();
}

std::string MetaItem(const std::string& name, const std::string& value) {
  return "<div><dt>" + HtmlEscape(name) + "</dt><dd>" +
         HtmlEscape(value.empty() ? "-" : Truncated(value, 300)) + "</dd></div>";
}

std::string Head(const std::string& title, const ReportModel& model) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
         "<meta name=\"generator\" content=\"locksmith\"><title>" +
         HtmlEscape(title) + "</title><style>" + std::string(HtmlReportCss()) +
         LaneStyles(model.styled_lanes()) + "</style></head><body>\n";
}

// The verdict, the run's facts, and the sections' links.
std::string RunHeader(const RunResults& r, const RunSummary& summary, const History& history) {
  std::string h = "<header class=\"run " + VerdictClass(r.valid()) +
                  "\"><div class=\"verdict\" id=\"verdict\">" + HtmlEscape(VerdictText(r.valid())) +
                  "</div><div class=\"title\"><h1>" +
                  HtmlEscape(Truncated(summary.DisplayName(), 300)) + "</h1><dl class=\"meta\">";
  h += MetaItem("backend", summary.backend);
  h += MetaItem("workload", summary.workload);
  h += MetaItem("nemesis", summary.nemesis);
  h += MetaItem("seed", summary.seed);
  const double duration_ns = static_cast<double>(summary.duration_ns);
  h += MetaItem("duration", history.empty() ? "" : FormatDurationNs(duration_ns));
  if (!summary.time_limit.empty()) h += MetaItem("time limit", summary.time_limit + " s");
  h += MetaItem("ops", Num(history.size()));
  h += MetaItem("anomalies", Num(r.anomalies().size()));
  h += "</dl>";
  if (!r.reason().empty()) h += "<p class=\"reason\">" + HtmlEscape(r.reason()) + "</p>";
  return h + "</div></header>\n<nav><a href=\"#anomalies\">anomalies</a><a href=\"#timeline\">"
             "timeline</a><a href=\"#faults\">faults</a><a href=\"#availability\">availability"
             "</a><a href=\"#plots\">latency &amp; throughput</a><a href=\"#counts\">op counts</a>"
             "<a href=\"#checkers\">checkers</a><a href=\"#config\">config</a></nav>\n<main>";
}

// Each checker's verdict; its stats folded, for whoever wants the figures
// behind it (the page leads with the anomalies and the timeline).
std::string CheckersSection(const RunResults& r) {
  std::string h = "<section id=\"checkers\"><h2>Checkers</h2><table class=\"grid\"><tr>"
                  "<th>checker</th><th>verdict</th><th>anomalies</th><th>reason</th><th>stats</th>"
                  "</tr>";
  for (const auto& c : r.checkers()) {
    h += "<tr><td>" + HtmlEscape(c.name) + "</td><td><span class=\"badge " + VerdictClass(c.valid) +
         "\">" + VerdictText(c.valid) + "</span></td><td class=\"n\">" + Num(c.anomalies.size()) +
         "</td><td>" + HtmlEscape(c.reason) + "</td><td>" +
         (c.stats.is_null() || c.stats.empty()
              ? ""
              : "<details class=\"stats\"><summary>stats</summary>" + RenderStats(c.stats, "", 0) +
                    "</details>") +
         "</td></tr>";
  }
  return h + "</table></section>\n";
}

// "double-holder ×3 ..." over the anomalies.
std::string AnomalyTypes(const nlohmann::json& anomalies) {
  std::map<std::string, int64_t> by_type;
  for (const auto& a : anomalies) {
    std::string t = FieldText(a, "type");
    ++by_type[t.empty() ? "anomaly" : t];
  }
  std::string h = "<p class=\"types\">";
  for (const auto& [t, n] : by_type) {
    h += "<span class=\"atype\">" + HtmlEscape(t) + "</span> \xC3\x97" + Num(n) + " ";
  }
  return h + "<span class=\"muted\">Click an op or “show on timeline” to highlight it "
             "below.</span></p>";
}

// The first few as markup; the rest as text the script turns into markup
// after the first frame, so hundreds of stories (SVG, tables) cost no
// parsing or layout before the timeline shows. Safe as the text of a
// script element: every value in it is escaped, so no '<' of a value can
// end the element; checked all the same.
std::string AnomalyList(const nlohmann::json& anomalies, const ReportModel& model,
                        const HtmlReportOptions& options) {
  std::string h;
  size_t number = 0;
  std::string later;
  for (const auto& a : anomalies) {
    if (number == options.max_anomalies) break;
    ++number;
    (number <= options.inline_anomalies ? h : later) += RenderAnomaly(a, number, model);
  }
  if (later.empty()) return h;
  if (ContainsIgnoringCase(later, "</script") || later.find("<!--") != std::string::npos) {
    return h + later;
  }
  return h + "<div id=\"anomalies-later\"></div><script type=\"text/html\" id=\"anomalies-more\">" +
         later + "</script><noscript><p class=\"muted\">" +
         Num(number - options.inline_anomalies) + " more anomalies show with JavaScript.</p>"
         "</noscript>";
}

std::string AnomaliesSection(const RunResults& r, const ReportModel& model,
                             const HtmlReportOptions& options) {
  const auto& anomalies = r.anomalies();
  std::string h = "<section id=\"anomalies\"><h2>Anomalies (" + Num(anomalies.size()) + ")</h2>";
  if (anomalies.empty()) return h + "<p class=\"muted\">No anomalies.</p></section>\n";
  h += AnomalyTypes(anomalies) + AnomalyList(anomalies, model, options);
  if (anomalies.size() > options.max_anomalies) {
    h += "<p class=\"muted\">" + Num(anomalies.size() - options.max_anomalies) +
         " more anomalies are in results.json.</p>";
  }
  return h + "</section>\n";
}

// The faults; then availability: the checker's figures, or computed here
// for older runs.
std::string FaultSections(const RunResults& r, const History& history, const ReportModel& model) {
  nlohmann::json availability;
  for (const auto& c : r.checkers()) {
    if (c.name == "availability") availability = c.stats;
  }
  if (!availability.is_object()) availability = AvailabilityChecker().Check(history).stats;
  return "<section id=\"faults\"><h2>Faults (" + Num(model.faults().size()) + ")</h2>" +
         FaultsHtml(model) + FaultLedgerHtml(r.json().value("faults", nlohmann::json())) +
         "</section>\n<section id=\"availability\"><h2>Availability</h2><p class=\"muted\">"
         "Acquire attempts that got the lock, invoked while some fault window was open and while "
         "none was.</p>" + AvailabilityHtml(availability, model) + "</section>\n";
}

// The timeline: drawn by the script from the data blob.
std::string Timeline() {
  return R"(<section id="timeline"><h2>Timeline</h2>
<div class="controls"><button data-act="fit">fit</button><button data-act="in">zoom in</button><button data-act="out">zoom out</button><label><input type="checkbox" id="tl-faults" checked> faults</label><label><input type="checkbox" id="tl-holds" checked> holds</label><span id="tl-range" class="muted"></span></div>
<div class="tl-wrap"><canvas id="tl" width="1200" height="400"></canvas><div id="tip" class="tip" hidden></div></div>
<div class="legend"><span class="sw ok"></span>ok
<span class="sw fail"></span>fail <span class="sw info"></span>info (may have happened)
<span class="sw pending"></span>never completed
<span class="sw nem"></span>nemesis op / paused holder <span class="sw fault"></span>fault active
<span class="sw hold"></span>lock held <span class="sw overlap"></span>two holders
<span class="sw expired"></span>held past lease
<span class="muted"> — wheel: zoom, drag: pan, double-click: fit, hover: details</span></div>
<noscript><p>The timeline and plots need JavaScript.</p></noscript></section>
)";
}

// The plots, drawn by the script; LatencyAndCounts closes their section.
std::string Plots(const ReportModel& model) {
  std::string h = R"(<section id="plots"><h2>Latency &amp; throughput</h2>
<div class="plots"><figure><figcaption>Latency over time (invoke time; log scale)</figcaption><canvas id="p-scatter" width="600" height="300"></canvas></figure>
<figure><figcaption>Latency quantiles per f (all outcomes; solid p50, dashed p95, dotted p99)</figcaption><canvas id="p-quant" width="600" height="300"></canvas></figure>
<figure><figcaption>Throughput per outcome (completions / s)</figcaption>
<canvas id="p-tp" width="600" height="300"></canvas></figure>
)";
  if (model.resource_op_count() > 0) {
    h += "<figure><figcaption>The resource's reads and writes (value over time: acknowledged "
         "writes as a line, reads as dots, init and final as squares)</figcaption>"
         "<canvas id=\"p-res\" width=\"600\" height=\"300\"></canvas></figure>";
  }
  return h + "</div>\n";
}

// Latency per f (closing the plots' section), then op counts per f.
std::string LatencyAndCounts(const ReportModel& model) {
  std::string h = "<table class=\"grid\"><tr><th>f</th><th>completed</th><th>ok</th><th>fail</th>"
                  "<th>info</th><th>mean</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th>"
                  "<th>max</th></tr>";
  for (const auto& [f, s] : model.latency()) {
    h += "<tr><td>" + HtmlEscape(f) + "</td><td class=\"n\">" + Num(s.count) + "</td>";
    for (int64_t c : s.by_outcome) h += "<td class=\"n\">" + Num(c) + "</td>";
    for (double v : {s.mean_ns, double(s.p50), double(s.p90), double(s.p99), double(s.p999),
                     double(s.max)}) {
      h += "<td class=\"n\">" + HtmlEscape(FormatDurationNs(v)) + "</td>";
    }
    h += "</tr>";
  }
  h += "</table></section>\n<section id=\"counts\"><h2>Op counts</h2><table class=\"grid\"><tr>"
       "<th>f</th><th>invoke</th><th>ok</th><th>fail</th><th>info</th></tr>";
  std::array<int64_t, 4> total{};
  for (const auto& [f, c] : model.counts()) {
    h += "<tr><td>" + HtmlEscape(f) + "</td>";
    for (size_t i = 0; i < 4; ++i) {
      h += "<td class=\"n\">" + Num(c[i]) + "</td>";
      total[i] += c[i];
    }
    h += "</tr>";
  }
  h += "<tr class=\"total\"><td>total</td>";
  for (int64_t c : total) h += "<td class=\"n\">" + Num(c) + "</td>";
  return h + "</tr></table></section>\n";
}

// The config, then the data blob and the scripts that draw from it.
void AppendConfigAndScripts(const nlohmann::json& config, const ReportModel& model,
                            std::string* h) {
  *h += "<section id=\"config\"><h2>Config</h2><details><summary>config.json</summary><pre>" +
        HtmlEscape(config.is_null() ? "(no config.json)" : DumpJson(config, 2)) +
        "</pre></details></section></main>\n";
  *h += "<script type=\"application/json\" id=\"report-data\">";
  std::string blob;
  model.AppendJson(&blob);
  EscapeJsonForScript(&blob);
  *h += blob;
  blob.clear();
  blob.shrink_to_fit();
  *h += "</script>\n<script>";
  *h += HtmlReportJs();
  *h += "</script></body></html>\n";
}

// `results` with what results.json of a run written before it carried
// them lacks (its faults described, its service's events declared), when
// `options` say how; null when it lacks nothing they can add.
nlohmann::json CompletedForOlderRuns(const History& history, const nlohmann::json& results,
                                     const nlohmann::json& config,
                                     const HtmlReportOptions& options) {
  if (!results.is_object()) return nullptr;
  nlohmann::json completed;
  if (options.describe_faults && !results.contains("fault_descriptions")) {
    completed = results;
    completed["fault_descriptions"] = options.describe_faults(history);
  }
  if (options.declare_service_events && !results.contains("service_events")) {
    if (nlohmann::json declared = options.declare_service_events(config); !declared.is_null()) {
      if (completed.is_null()) completed = results;
      completed["service_events"] = std::move(declared);
    }
  }
  return completed;
}

}  // namespace

Result<std::string> RenderHtmlReport(const History& history, const nlohmann::json& results,
                                     const nlohmann::json& config,
                                     const HtmlReportOptions& options) {
  auto parsed = RunResults::Parse(results);
  if (!parsed) return Error{parsed.error()};
  if (nlohmann::json completed = CompletedForOlderRuns(history, results, config, options);
      !completed.is_null()) {
    parsed = RunResults::Parse(completed);
  }
  const RunResults& r = *parsed;
  const RunSummary summary = RunSummary::From(config, history);
  const ReportModel model = ReportModel::Build(history, r.json(), options.model);
  std::string h;
  h.reserve(model.row_count() * 14 + model.hold_count() * 16 + 65536);
  h += Head(VerdictText(r.valid()) + std::string(" \xE2\x80\x94 ") + summary.DisplayName(), model);
  // The verdict, the anomalies' stories and the timeline first; the
  // figures behind them after.
  h += RunHeader(r, summary, history);
  h += AnomaliesSection(r, model, options);
  h += Timeline();
  h += FaultSections(r, history, model);
  h += Plots(model);
  h += LatencyAndCounts(model);
  h += CheckersSection(r);
  AppendConfigAndScripts(config, model, &h);
  return h;
}

Status WriteHtmlReport(const History& history, const nlohmann::json& results,
                       const nlohmann::json& config, const std::string& output_path,
                       const HtmlReportOptions& options) {
  auto html = RenderHtmlReport(history, results, config, options);
  if (!html) return Error{html.error()};
  return WriteFileAtomically(output_path, *html);
}

Status WriteHtmlReport(const std::string& run_dir, const HtmlReportOptions& options) {
  auto docs = ReadRunDocuments(run_dir);
  if (!docs) return Error{docs.error()};
  auto history = ReadRunHistory(run_dir, nullptr, options.max_history_bytes);
  if (!history) return Error{history.error()};
  return WriteHtmlReport(*history, docs->results, docs->config, run_dir + "/report.html", options);
}

Status WriteHtmlReport(const std::string& run_dir) {
  return WriteHtmlReport(run_dir, HtmlReportOptions());
}

}  // namespace locksmith
