#include "reports/stats_html.h"

#include <algorithm>
#include <cstdio>
#include <string_view>
#include <utility>
#include <vector>

#include "reports/escape.h"
#include "reports/html_text.h"
#include "reports/run_summary.h"

namespace locksmith {
namespace {

constexpr size_t kMaxListItems = 50;
constexpr size_t kMaxTableRows = 200;

std::string Header(const std::string& name) {
  std::string h = name;
  std::replace(h.begin(), h.end(), '_', ' ');
  return HtmlEscape(h);
}

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool AllScalars(const nlohmann::json& v) {
  return std::all_of(v.begin(), v.end(), [](const auto& e) {
    return e.is_primitive() || (e.is_array() && e.size() <= 4 &&
                                std::all_of(e.begin(), e.end(), [](const auto& x) {
                                  return x.is_primitive();
                                }));
  });
}

// Rows of objects with scalar fields: one table, a column per field.
std::string StatsTable(const std::vector<std::pair<std::string, const nlohmann::json*>>& rows,
                       const std::string& first) {
  std::vector<std::string> columns;
  for (const auto& [label, row] : rows) {
    for (const auto& [k, x] : row->items()) {
      if (std::find(columns.begin(), columns.end(), k) == columns.end()) columns.push_back(k);
    }
  }
  std::string out = "<table class=\"grid stats\"><tr>";
  if (!first.empty()) out += "<th>" + Header(first) + "</th>";
  for (const auto& c : columns) out += "<th>" + Header(c) + "</th>";
  out += "</tr>";
  size_t shown = 0;
  for (const auto& [label, row] : rows) {
    if (shown++ == kMaxTableRows) break;
    out += "<tr>";
    if (!first.empty()) out += "<td>" + HtmlEscape(Truncated(label, 200)) + "</td>";
    for (const auto& c : columns) {
      auto it = row->find(c);
      out += "<td class=\"n\">" + (it == row->end() ? "" : RenderStats(*it, c, 9)) + "</td>";
    }
    out += "</tr>";
  }
  if (rows.size() > kMaxTableRows) {
    out += "<tr><td class=\"muted\">\xE2\x80\xA6 " + std::to_string(rows.size() - kMaxTableRows) +
           " more</td></tr>";
  }
  return out + "</table>";
}

std::string RenderStatsArray(const nlohmann::json& v, const std::string& name, int depth) {
  if (AllScalars(v)) {
    std::string out;
    size_t shown = 0;
    for (const auto& e : v) {
      if (shown++ == kMaxListItems) break;
      out += (shown > 1 ? ", " : "") + RenderStats(e, name, depth + 1);
    }
    if (v.size() > kMaxListItems) out += ", \xE2\x80\xA6";
    return out;
  }
  if (std::all_of(v.begin(), v.end(),
                  [](const auto& e) { return e.is_object() && AllScalars(e); })) {
    std::vector<std::pair<std::string, const nlohmann::json*>> rows;
    for (const auto& e : v) rows.emplace_back("", &e);
    return StatsTable(rows, "");
  }
  return "<code>" + HtmlEscape(Truncated(DumpJson(v), 500)) + "</code>";
}

}  // namespace

std::string FormatStat(const std::string& name, const nlohmann::json& v) {
  if (v.is_null()) return "\xE2\x80\x93";
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_string()) return HtmlEscape(Truncated(v.get<std::string>(), 500));
  if (!v.is_number()) return "";
  const double d = v.get<double>();
  if (EndsWith(name, "_ms")) return HtmlEscape(FormatDurationNs(d * 1e6));
  if (EndsWith(name, "_ns")) return HtmlEscape(FormatDurationNs(d));
  if (EndsWith(name, "_s") || name == "time") return HtmlEscape(FormatDurationNs(d * 1e9));
  if (EndsWith(name, "_bytes")) {
    char buf[32];
    std::snprintf(buf, sizeof buf, d >= 1 << 20 ? "%.1f MiB" : "%.1f KiB",
                  d / (d >= 1 << 20 ? 1048576.0 : 1024.0));
    return buf;
  }
  if (name == "availability" || EndsWith(name, "_rate") || EndsWith(name, "share")) {
    return Percent(d);
  }
  if (v.is_number_integer() || v.is_number_unsigned()) return WithThousands(v.get<int64_t>());
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", d);
  return buf;
}

std::string RenderStats(const nlohmann::json& v, const std::string& name, int depth) {
  if (v.is_primitive()) return FormatStat(name, v);
  if (v.empty()) return "<span class=\"muted\">\xE2\x80\x93</span>";
  if (depth >= 6) return "<code>" + HtmlEscape(Truncated(DumpJson(v), 500)) + "</code>";
  if (v.is_array()) return RenderStatsArray(v, name, depth);
  // An object of objects with scalar fields (per key, per f, per item...).
  if (v.size() >= 1 && std::all_of(v.begin(), v.end(), [](const auto& e) {
        return e.is_object() && !e.empty() && AllScalars(e);
      })) {
    std::vector<std::pair<std::string, const nlohmann::json*>> rows;
    for (const auto& [k, e] : v.items()) rows.emplace_back(k, &e);
    return StatsTable(rows, name.empty() ? " " : name);
  }
  std::string out = "<table class=\"kv\">";
  for (const auto& [k, child] : v.items()) {
    out += "<tr><th>" + Header(k) + "</th><td>" + RenderStats(child, k, depth + 1) + "</td></tr>";
  }
  return out + "</table>";
}

}  // namespace locksmith
