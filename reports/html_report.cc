#include "reports/html_report.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <string_view>

#include "checker/checker.h"
#include "reports/escape.h"
#include "reports/html_template.h"
#include "reports/run_results.h"
#include "reports/run_summary.h"

namespace locksmith {
namespace {

constexpr size_t kMaxListItems = 50;
constexpr int kMaxDepth = 3;

std::string VerdictClass(Validity v) {
  switch (v) {
    case Validity::kTrue: return "valid";
    case Validity::kFalse: return "invalid";
    case Validity::kUnknown: return "unknown";
  }
  return "unknown";
}

std::string Truncated(std::string s, size_t max) {
  if (s.size() <= max) return s;
  // Cut at a UTF-8 boundary so the escaper does not mangle the last char.
  while (max > 0 && (static_cast<unsigned char>(s[max]) & 0xC0) == 0x80) --max;
  return s.substr(0, max) + "…";
}

std::string Text(const nlohmann::json& j, const char* name) {
  if (!j.is_object()) return "";
  auto it = j.find(name);
  if (it == j.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : DumpJson(*it);
}

// A clickable chip for an op ref; the page's script highlights the op.
std::string OpChip(const nlohmann::json& ref) {
  const int64_t index = ref["index"].get<int64_t>();
  const std::string type = Text(ref, "type");
  std::string label = "#" + std::to_string(index);
  std::string process = Text(ref, "process");
  if (!process.empty()) label += " \xC2\xB7 " + (process == "nemesis" ? process : "p" + process);
  label += " " + type + " " + Text(ref, "f");
  if (std::string key = Text(ref, "key"); !key.empty()) label += " " + key;
  if (auto t = ref.find("time"); t != ref.end() && t->is_number()) {
    label += " @ " + FormatDurationNs(t->get<double>());
  }
  return "<a href=\"#timeline\" class=\"opref t-" + HtmlEscape(type) + "\" data-idx=\"" +
         std::to_string(index) + "\">" + HtmlEscape(Truncated(label, 200)) + "</a>";
}

std::string RenderValue(const nlohmann::json& v, int depth) {
  if (IsOpRef(v)) return OpChip(v);
  if (v.is_null()) return "<span class=\"muted\">null</span>";
  if (v.is_string()) return HtmlEscape(Truncated(v.get<std::string>(), 2000));
  if (v.is_primitive()) return HtmlEscape(DumpJson(v));
  if (depth >= kMaxDepth) {
    return "<code>" + HtmlEscape(Truncated(DumpJson(v), 2000)) + "</code>";
  }
  std::string out;
  if (v.is_array()) {
    if (v.empty()) return "<span class=\"muted\">[]</span>";
    const bool all_refs = std::all_of(v.begin(), v.end(), [](const auto& e) { return IsOpRef(e); });
    const bool all_scalars =
        std::all_of(v.begin(), v.end(), [](const auto& e) { return e.is_primitive(); });
    size_t shown = 0;
    for (const auto& e : v) {
      if (shown++ == kMaxListItems) break;
      if (all_refs) {
        out += OpChip(e) + " ";
      } else if (all_scalars) {
        out += (shown > 1 ? ", " : "") + RenderValue(e, depth + 1);
      } else {
        out += "<div class=\"item\">" + RenderValue(e, depth + 1) + "</div>";
      }
    }
    if (v.size() > kMaxListItems) {
      out += " <span class=\"muted\">… " + std::to_string(v.size() - kMaxListItems) + " more</span>";
    }
    return out;
  }
  out += "<table class=\"kv\">";
  for (const auto& [name, child] : v.items()) {
    out += "<tr><th>" + HtmlEscape(name) + "</th><td>" + RenderValue(child, depth + 1) +
           "</td></tr>";
  }
  return out + "</table>";
}

// Fields like "overlap_ns": [start, end] give the interval to zoom to.
std::string SpanAttr(const nlohmann::json& a) {
  for (const auto& [name, v] : a.items()) {
    // A null end means "still overlapping when the run ended".
    if (name.size() > 3 && name.compare(name.size() - 3, 3, "_ns") == 0 && v.is_array() &&
        v.size() == 2 && v[0].is_number() && (v[1].is_number() || v[1].is_null())) {
      return " data-span=\"" + std::to_string(v[0].get<int64_t>()) + "," +
             (v[1].is_null() ? std::string("end") : std::to_string(v[1].get<int64_t>())) + "\"";
    }
  }
  return "";
}

std::string RenderAnomaly(const nlohmann::json& a, size_t number) {
  std::set<int64_t> indices;
  CollectOpIndices(a, &indices);
  std::string ops_attr;
  for (int64_t i : indices) ops_attr += (ops_attr.empty() ? "" : ",") + std::to_string(i);

  const std::string type = a.is_object() ? Text(a, "type") : "";
  std::string out = "<div class=\"anomaly\" id=\"anomaly-" + std::to_string(number) +
                    "\" data-ops=\"" + ops_attr + "\"" + (a.is_object() ? SpanAttr(a) : "") + ">";
  out += "<div class=\"ahead\"><span class=\"num\">" + std::to_string(number) +
         "</span><span class=\"atype\">" + HtmlEscape(type.empty() ? "anomaly" : type) + "</span>";
  if (std::string key = Text(a, "key"); !key.empty()) {
    out += " key <code>" + HtmlEscape(Truncated(key, 200)) + "</code>";
  }
  if (std::string checker = Text(a, "checker"); !checker.empty()) {
    out += " <span class=\"checker\">" + HtmlEscape(checker) + "</span>";
  }
  if (!indices.empty()) out += " <button class=\"show\">show on timeline</button>";
  out += "</div>";
  if (!a.is_object()) return out + RenderValue(a, 0) + "</div>";

  if (auto ops = a.find("ops"); ops != a.end()) {
    out += "<div class=\"aops\"><span class=\"label\">ops</span> " + RenderValue(*ops, 0) + "</div>";
  }
  std::string rows;
  for (const auto& [name, v] : a.items()) {
    if (name == "type" || name == "ops" || name == "key" || name == "checker") continue;
    rows += "<tr><th>" + HtmlEscape(name) + "</th><td>" + RenderValue(v, 1) + "</td></tr>";
  }
  if (!rows.empty()) out += "<table class=\"kv fields\">" + rows + "</table>";
  return out + "</div>";
}

std::string MetaItem(const std::string& name, const std::string& value) {
  return "<div><dt>" + HtmlEscape(name) + "</dt><dd>" +
         HtmlEscape(value.empty() ? "-" : Truncated(value, 300)) + "</dd></div>";
}

std::string Num(int64_t v) { return std::to_string(v); }

}  // namespace

Result<std::string> RenderHtmlReport(const History& history, const nlohmann::json& results,
                                     const nlohmann::json& config,
                                     const HtmlReportOptions& options) {
  auto parsed = RunResults::Parse(results);
  if (!parsed) return Error{parsed.error()};
  const RunResults& r = *parsed;
  const RunSummary summary = RunSummary::From(config, history);
  const ReportModel model = ReportModel::Build(history, r.json(), options.model);

  const std::string verdict = VerdictText(r.valid());
  const std::string vclass = VerdictClass(r.valid());
  std::string h;
  h.reserve(model.row_count() * 48 + 65536);
  h += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
       "<meta name=\"generator\" content=\"locksmith\">";
  h += "<title>" + HtmlEscape(verdict + " \xE2\x80\x94 " + summary.DisplayName()) + "</title>";
  h += "<style>";
  h += HtmlReportCss();
  h += "</style></head><body>\n";

  // Header.
  h += "<header class=\"run " + vclass + "\"><div class=\"verdict\" id=\"verdict\">" +
       HtmlEscape(verdict) + "</div><div class=\"title\"><h1>" +
       HtmlEscape(Truncated(summary.DisplayName(), 300)) + "</h1><dl class=\"meta\">";
  h += MetaItem("backend", summary.backend);
  h += MetaItem("workload", summary.workload);
  h += MetaItem("nemesis", summary.nemesis);
  h += MetaItem("seed", summary.seed);
  h += MetaItem("duration", history.empty() ? "" : FormatDurationNs(static_cast<double>(summary.duration_ns)));
  if (!summary.time_limit.empty()) h += MetaItem("time limit", summary.time_limit + " s");
  h += MetaItem("ops", Num(static_cast<int64_t>(history.size())));
  h += MetaItem("anomalies", Num(static_cast<int64_t>(r.anomalies().size())));
  h += "</dl>";
  if (!r.reason().empty()) h += "<p class=\"reason\">" + HtmlEscape(r.reason()) + "</p>";
  h += "</div></header>\n<nav><a href=\"#checkers\">checkers</a><a href=\"#anomalies\">anomalies</a>"
       "<a href=\"#timeline\">timeline</a><a href=\"#plots\">latency &amp; throughput</a>"
       "<a href=\"#counts\">op counts</a><a href=\"#config\">config</a></nav>\n<main>";

  // Checkers.
  h += "<section id=\"checkers\"><h2>Checkers</h2><table class=\"grid\"><tr><th>checker</th>"
       "<th>verdict</th><th>anomalies</th><th>reason</th><th>stats</th></tr>";
  for (const auto& c : r.checkers()) {
    h += "<tr><td>" + HtmlEscape(c.name) + "</td><td><span class=\"badge " + VerdictClass(c.valid) +
         "\">" + VerdictText(c.valid) + "</span></td><td class=\"n\">" +
         Num(static_cast<int64_t>(c.anomalies.size())) + "</td><td>" + HtmlEscape(c.reason) +
         "</td><td>" + (c.stats.is_null() || c.stats.empty() ? "" : RenderValue(c.stats, 1)) +
         "</td></tr>";
  }
  h += "</table></section>\n";

  // Anomalies.
  const auto& anomalies = r.anomalies();
  h += "<section id=\"anomalies\"><h2>Anomalies (" + Num(static_cast<int64_t>(anomalies.size())) +
       ")</h2>";
  if (anomalies.empty()) {
    h += "<p class=\"muted\">No anomalies.</p>";
  } else {
    std::map<std::string, int64_t> by_type;
    for (const auto& a : anomalies) {
      std::string t = Text(a, "type");
      ++by_type[t.empty() ? "anomaly" : t];
    }
    h += "<p class=\"types\">";
    for (const auto& [t, n] : by_type) {
      h += "<span class=\"atype\">" + HtmlEscape(t) + "</span> \xC3\x97" + Num(n) + " ";
    }
    h += "<span class=\"muted\">Click an op or “show on timeline” to highlight it below.</span></p>";
    size_t number = 0;
    for (const auto& a : anomalies) {
      if (number == options.max_anomalies) break;
      h += RenderAnomaly(a, ++number);
    }
    if (anomalies.size() > options.max_anomalies) {
      h += "<p class=\"muted\">" + Num(static_cast<int64_t>(anomalies.size() - options.max_anomalies)) +
           " more anomalies are in results.json.</p>";
    }
  }
  h += "</section>\n";

  // Timeline and plots: drawn by the script from the data blob.
  h += R"(<section id="timeline"><h2>Timeline</h2>
<div class="controls"><button data-act="fit">fit</button><button data-act="in">zoom in</button><button data-act="out">zoom out</button><label><input type="checkbox" id="tl-faults" checked> faults</label><label><input type="checkbox" id="tl-holds" checked> holds</label><span id="tl-range" class="muted"></span></div>
<div class="tl-wrap"><canvas id="tl" width="1200" height="400"></canvas><div id="tip" class="tip" hidden></div></div>
<div class="legend"><span class="sw ok"></span>ok <span class="sw fail"></span>fail <span class="sw info"></span>info (may have happened) <span class="sw pending"></span>never completed <span class="sw nem"></span>nemesis op <span class="sw fault"></span>fault active <span class="sw hold"></span>lock held <span class="sw overlap"></span>two holders <span class="sw expired"></span>held past lease
<span class="muted"> — wheel: zoom, drag: pan, double-click: fit, hover: details</span></div>
<noscript><p>The timeline and plots need JavaScript.</p></noscript></section>
<section id="plots"><h2>Latency &amp; throughput</h2>
<div class="plots"><figure><figcaption>Latency over time (invoke time; log scale)</figcaption><canvas id="p-scatter" width="600" height="300"></canvas></figure>
<figure><figcaption>Latency quantiles per f (all outcomes; solid p50, dashed p95, dotted p99)</figcaption><canvas id="p-quant" width="600" height="300"></canvas></figure>
<figure><figcaption>Throughput per outcome (completions / s)</figcaption><canvas id="p-tp" width="600" height="300"></canvas></figure></div>
)";
  h += "<table class=\"grid\"><tr><th>f</th><th>completed</th><th>ok</th><th>fail</th><th>info</th>"
       "<th>mean</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>max</th></tr>";
  for (const auto& [f, s] : model.latency()) {
    h += "<tr><td>" + HtmlEscape(f) + "</td><td class=\"n\">" + Num(s.count) + "</td>";
    for (int64_t c : s.by_outcome) h += "<td class=\"n\">" + Num(c) + "</td>";
    for (double v : {s.mean_ns, double(s.p50), double(s.p90), double(s.p99), double(s.p999),
                     double(s.max)}) {
      h += "<td class=\"n\">" + HtmlEscape(FormatDurationNs(v)) + "</td>";
    }
    h += "</tr>";
  }
  h += "</table></section>\n";

  // Op counts.
  h += "<section id=\"counts\"><h2>Op counts</h2><table class=\"grid\"><tr><th>f</th><th>invoke</th>"
       "<th>ok</th><th>fail</th><th>info</th></tr>";
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
  h += "</tr></table></section>\n";

  h += "<section id=\"config\"><h2>Config</h2><details><summary>config.json</summary><pre>" +
       HtmlEscape(config.is_null() ? "(no config.json)" : DumpJson(config, 2)) +
       "</pre></details></section></main>\n";

  h += "<script type=\"application/json\" id=\"report-data\">";
  std::string blob;
  model.AppendJson(&blob);
  EscapeJsonForScript(&blob);
  h += blob;
  blob.clear();
  blob.shrink_to_fit();
  h += "</script>\n<script>";
  h += HtmlReportJs();
  h += "</script></body></html>\n";
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
  auto history = ReadHistoryJsonl(run_dir + "/history.jsonl");
  if (!history) return Error{history.error()};
  return WriteHtmlReport(*history, docs->results, docs->config, run_dir + "/report.html", options);
}

Status WriteHtmlReport(const std::string& run_dir) {
  return WriteHtmlReport(run_dir, HtmlReportOptions());
}

}  // namespace locksmith
