#include "reports/stats_html.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>
#include <utility>
#include <vector>

#include "base/text.h"
#include "reports/escape.h"
#include "reports/html_text.h"
#include "reports/run_summary.h"

namespace locksmith {
namespace {

constexpr size_t kMaxStatListItems = 50;
constexpr size_t kMaxTableRows = 200;

std::string Header(const std::string& name) { return HtmlEscape(StatLabel(name)); }

// "12.3 ms" for a duration in the unit `unit` names; zero in that unit, so
// a stat named in ms never reads "0 ns".
std::string DurationIn(double value, double ns_per_unit, const char* unit) {
  if (value == 0) return std::string("0 ") + unit;
  return FormatDurationNs(value * ns_per_unit);
}

// A rate or a mean with the digits a person reads: "17.3", "0.042", "1,235".
std::string Plain(double d) {
  if (d >= 999.5 || d <= -999.5) return WithThousands(std::llround(d));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", d);
  return buf;
}

// The values of an object named per_X: "3.5 per X".
std::string PerParent(const std::string& parent, const nlohmann::json& v) {
  if (!v.is_number()) return FormatStat("", v);
  return Plain(v.get<double>()) + " per " + HtmlEscape(StatLabel(parent.substr(4)));
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
      if (shown++ == kMaxStatListItems) break;
      out += (shown > 1 ? ", " : "") + RenderStats(e, name, depth + 1);
    }
    if (v.size() > kMaxStatListItems) out += ", \xE2\x80\xA6";
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

StatUnit StatUnitOf(std::string_view name) {
  if (name.ends_with("_per_s")) return StatUnit::kPerSecond;
  if (name.ends_with("_ms")) return StatUnit::kMillis;
  if (name.ends_with("_ns")) return StatUnit::kNanos;
  if (name.ends_with("_s") || name == "time") return StatUnit::kSeconds;
  if (name.ends_with("_bytes")) return StatUnit::kBytes;
  if (name.ends_with("_share") || name.ends_with("_rate") || name == "availability" ||
      name == "answered") {
    return StatUnit::kShare;
  }
  return StatUnit::kCount;
}

std::string StatLabel(std::string_view name) {
  std::string_view base = name;
  for (std::string_view unit : {"_ms", "_ns", "_s", "_bytes"}) {
    if (name.size() > unit.size() && name.ends_with(unit) && !name.ends_with("_per_s")) {
      base = name.substr(0, name.size() - unit.size());
      break;
    }
  }
  std::string label(base);
  std::replace(label.begin(), label.end(), '_', ' ');
  return label;
}

std::string FormatStat(const std::string& name, const nlohmann::json& v) {
  if (v.is_null()) return "\xE2\x80\x93";
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_string()) return HtmlEscape(Truncated(v.get<std::string>(), 500));
  if (!v.is_number()) return "";
  const double d = v.get<double>();
  switch (StatUnitOf(name)) {
    case StatUnit::kMillis: return HtmlEscape(DurationIn(d, 1e6, "ms"));
    case StatUnit::kNanos: return HtmlEscape(DurationIn(d, 1, "ns"));
    case StatUnit::kSeconds: return HtmlEscape(DurationIn(d, 1e9, "s"));
    case StatUnit::kPerSecond: return Plain(d);
    case StatUnit::kShare: return Percent(d);
    case StatUnit::kBytes: {
      char buf[32];
      std::snprintf(buf, sizeof buf, d >= 1 << 20 ? "%.1f MiB" : "%.1f KiB",
                    d / (d >= 1 << 20 ? 1048576.0 : 1024.0));
      return buf;
    }
    case StatUnit::kCount: break;
  }
  if (v.is_number_integer() || v.is_number_unsigned()) return WithThousands(v.get<int64_t>());
  return Plain(d);
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
    const bool per = name.starts_with("per_") && child.is_primitive();
    out += "<tr><th>" + Header(k) + "</th><td>" +
           (per ? PerParent(name, child) : RenderStats(child, k, depth + 1)) + "</td></tr>";
  }
  return out + "</table>";
}

}  // namespace locksmith
