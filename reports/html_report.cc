#include "reports/html_report.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <string_view>

#include "base/atomic_file.h"
#include "checker/availability.h"
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

// --- Stats as tables ---------------------------------------------------------

std::string Header(const std::string& name) {
  std::string h = name;
  std::replace(h.begin(), h.end(), '_', ' ');
  return HtmlEscape(h);
}

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string WithThousands(int64_t v) {
  std::string digits = std::to_string(v < 0 ? -v : v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (v < 0 ? "-" : "") + out;
}

std::string Percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * share);
  return buf;
}

// A stat's value for people: units from its name's suffix (_ms, _s, _ns,
// _bytes), shares as percents, big counts with separators.
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

bool AllScalars(const nlohmann::json& v) {
  return std::all_of(v.begin(), v.end(), [](const auto& e) {
    return e.is_primitive() || (e.is_array() && e.size() <= 4 &&
                                std::all_of(e.begin(), e.end(), [](const auto& x) {
                                  return x.is_primitive();
                                }));
  });
}

std::string RenderStats(const nlohmann::json& v, const std::string& name, int depth);

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
    if (shown++ == 200) break;
    out += "<tr>";
    if (!first.empty()) out += "<td>" + HtmlEscape(Truncated(label, 200)) + "</td>";
    for (const auto& c : columns) {
      auto it = row->find(c);
      out += "<td class=\"n\">" + (it == row->end() ? "" : RenderStats(*it, c, 9)) + "</td>";
    }
    out += "</tr>";
  }
  if (rows.size() > 200) {
    out += "<tr><td class=\"muted\">\xE2\x80\xA6 " + std::to_string(rows.size() - 200) +
           " more</td></tr>";
  }
  return out + "</table>";
}

std::string RenderStats(const nlohmann::json& v, const std::string& name, int depth) {
  if (v.is_primitive()) return FormatStat(name, v);
  if (v.empty()) return "<span class=\"muted\">\xE2\x80\x93</span>";
  if (depth >= 6) return "<code>" + HtmlEscape(Truncated(DumpJson(v), 500)) + "</code>";
  if (v.is_array()) {
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

// --- Anomaly stories ---------------------------------------------------------

std::string Seconds(int64_t ns) { return FormatSeconds(ns); }

// [a, b] as "a" when equal, else "a..b"; anything else as JSON.
std::string Range(const nlohmann::json& a, const char* name) {
  auto it = a.find(name);
  if (it == a.end()) return "";
  if (it->is_array() && it->size() == 2 && (*it)[0].is_number() && (*it)[1].is_number()) {
    return (*it)[0] == (*it)[1] ? DumpJson((*it)[0])
                                : DumpJson((*it)[0]) + ".." + DumpJson((*it)[1]);
  }
  return Text(a, name);
}

std::string Proc(int64_t p) { return "p" + std::to_string(p); }

std::string FaultSentence(const ReportModel& model, const FaultExplanation& cause) {
  if (cause.fault < 0) {
    return "No fault was in force at that moment or before it.";
  }
  const FaultView& f = model.faults()[static_cast<size_t>(cause.fault)];
  std::string out = "<span class=\"fam fam-" + HtmlEscape(f.family) + "\">" +
                    HtmlEscape(f.family) + "</span> <b>" + HtmlEscape(f.label) + "</b>";
  if (cause.active) {
    out = "In force: " + out + ", since " + Seconds(f.start) + " (" +
          HtmlEscape(FormatDurationNs(static_cast<double>(cause.gap_ns))) + " before)";
    if (!f.open) out += ", until " + Seconds(f.end);
    return out + ".";
  }
  return "No fault was in force; the closest before it: " + out +
         (f.point ? " at " : ", over at ") +
         Seconds(f.point ? f.start : f.end) + " (" +
         HtmlEscape(FormatDurationNs(static_cast<double>(cause.gap_ns))) + " before).";
}

// A small drawing of the story's holds on a shared time axis: each hold a
// bar (brown past its lease end, which a dashed line marks), the overlap in
// red, the explaining fault shaded, the read / write marks as ticks.
std::string StorySvg(const ReportModel& model, const AnomalyStory& st) {
  if (st.holds.empty()) return "";
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const auto& h : st.holds) {
    lo = std::min(lo, h.start);
    hi = std::max({hi, h.end, h.lease_end});
  }
  if (st.cause.fault >= 0) {
    const FaultView& f = model.faults()[static_cast<size_t>(st.cause.fault)];
    // Show the fault's start when it is not far out of the picture.
    if (lo - f.start < 2 * std::max<int64_t>(1, hi - lo)) lo = std::min(lo, f.start);
  }
  const double pad = std::max(1.0, static_cast<double>(hi - lo) * 0.06);
  const double t0 = static_cast<double>(lo) - pad, t1 = static_cast<double>(hi) + pad;
  constexpr double kLeft = 46, kRight = 560, kRow = 26, kTop = 18;
  const double height = kTop + kRow * static_cast<double>(st.holds.size()) + 24;
  auto x = [&](double t) {
    return kLeft + (std::clamp(t, t0, t1) - t0) / (t1 - t0) * (kRight - kLeft);
  };
  char buf[256];
  std::string svg;
  std::snprintf(buf, sizeof buf,
                "<svg class=\"story-svg\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" "
                "role=\"img\">",
                kRight + 40, height, kRight + 40, height);
  svg += buf;
  const double rows_bottom = kTop + kRow * static_cast<double>(st.holds.size());
  if (st.cause.fault >= 0) {
    const FaultView& f = model.faults()[static_cast<size_t>(st.cause.fault)];
    const double a = x(static_cast<double>(f.start));
    const double b = f.point ? a + 2 : x(static_cast<double>(f.end));
    std::snprintf(buf, sizeof buf,
                  "<rect class=\"sv-fault\" x=\"%.1f\" y=\"4\" width=\"%.1f\" height=\"%.1f\"/>",
                  a, std::max(2.0, b - a), rows_bottom - 4);
    svg += buf;
    std::snprintf(buf, sizeof buf, "<text class=\"sv-flabel\" x=\"%.1f\" y=\"13\">", a + 3);
    svg += buf + HtmlEscape(Truncated(f.family, 40)) + "</text>";
  }
  if (st.overlap_start >= 0) {
    const double a = x(static_cast<double>(st.overlap_start));
    const double b = x(static_cast<double>(st.overlap_end));
    std::snprintf(buf, sizeof buf,
                  "<rect class=\"sv-overlap\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                  "height=\"%.1f\"/>",
                  a, kTop - 2, std::max(2.0, b - a), rows_bottom - kTop + 4);
    svg += buf;
  }
  for (size_t i = 0; i < st.holds.size(); ++i) {
    const StoryHold& h = st.holds[i];
    const double y = kTop + kRow * static_cast<double>(i);
    std::snprintf(buf, sizeof buf, "<text class=\"sv-label\" x=\"2\" y=\"%.1f\">", y + 14);
    svg += buf + HtmlEscape(Proc(h.process)) + "</text>";
    const double a = x(static_cast<double>(h.start)), b = x(static_cast<double>(h.end));
    const bool expired = h.lease_end >= 0 && h.lease_end < h.end;
    const double e = expired ? x(static_cast<double>(h.lease_end)) : b;
    std::snprintf(buf, sizeof buf,
                  "<rect class=\"sv-hold\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"12\"/>", a,
                  y + 4, std::max(1.5, e - a));
    svg += buf;
    if (expired) {
      std::snprintf(buf, sizeof buf,
                    "<rect class=\"sv-expired\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                    "height=\"12\"/>",
                    e, y + 4, std::max(1.0, b - e));
      svg += buf;
    }
    if (h.lease_end >= 0) {
      const double l = x(static_cast<double>(h.lease_end));
      std::snprintf(buf, sizeof buf,
                    "<line class=\"sv-lease\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
                    "<text class=\"sv-small\" x=\"%.1f\" y=\"%.1f\">lease end</text>",
                    l, l, y + 1, y + 19, l + 2, y + 25);
      svg += buf;
    }
    for (const auto& mark : h.marks) {
      const double m = x(static_cast<double>(mark.time));
      std::snprintf(buf, sizeof buf,
                    "<line class=\"sv-mark\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
                    "<text class=\"sv-small\" x=\"%.1f\" y=\"%.1f\">",
                    m, m, y + 2, y + 18, m + 2, y + 25);
      svg += buf + HtmlEscape(Truncated(mark.label, 40)) + "</text>";
    }
  }
  // The axis: seconds from the run's start.
  std::snprintf(buf, sizeof buf,
                "<line class=\"sv-axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", kLeft,
                kRight, rows_bottom + 6, rows_bottom + 6);
  svg += buf;
  for (int k = 0; k <= 4; ++k) {
    const double t = t0 + (t1 - t0) * k / 4;
    std::snprintf(buf, sizeof buf, "<text class=\"sv-small\" x=\"%.1f\" y=\"%.1f\"%s>%.3f s</text>",
                  x(t), rows_bottom + 18, k == 4 ? " text-anchor=\"end\"" : "", t / 1e9);
    svg += buf;
  }
  return svg + "</svg>";
}

// The anomaly in words: who held what when, for how long together, and
// which fault explains it.
std::string StoryHtml(const ReportModel& model, const nlohmann::json& a) {
  const AnomalyStory st = model.StoryOf(a);
  if (st.at < 0) return "";
  std::string text;
  const std::string key = Text(a, "key");
  const std::string type = Text(a, "type");
  if (st.holds.size() >= 2 && Text(a, "type") == "double-holder") {
    const StoryHold& first = st.holds[0];
    const StoryHold& second = st.holds[1];
    text = "At <b>" + Seconds(second.start) + "</b> " + HtmlEscape(Proc(second.process)) +
           " acquired <code>" + HtmlEscape(Truncated(key, 100)) + "</code> while " +
           HtmlEscape(Proc(first.process)) + " held it (since " + Seconds(first.start);
    if (first.lease_end >= 0) {
      text += first.lease_end < second.start
                  ? ", its lease ended at " + Seconds(first.lease_end) + ", " +
                        HtmlEscape(FormatDurationNs(
                            static_cast<double>(second.start - first.lease_end))) +
                        " earlier, but it went on acting as holder"
                  : ", lease until " + Seconds(first.lease_end);
    }
    text += ").";
  } else if (st.holds.size() >= 2) {
    std::vector<std::string> parts;
    for (const auto& h : st.holds) {
      std::string part = HtmlEscape(Proc(h.process));
      for (const auto& m : h.marks) {
        part += std::string(&m == &h.marks.front() ? " " : ", ") +
                HtmlEscape(Truncated(m.label, 60)) + " at " + Seconds(m.time);
      }
      parts.push_back(part);
    }
    text = "On <code>" + HtmlEscape(Truncated(key, 100)) + "</code>: " + parts[0];
    for (size_t i = 1; i < parts.size(); ++i) {
      text += (i + 1 == parts.size() ? " and " : ", ") + parts[i];
    }
    text += "; both wrote from the same read, so one update was lost.";
    if (type == "oversold") {
      text = HtmlEscape(Text(a, "orders")) + " orders of " + HtmlEscape(Text(a, "initial")) +
             " units. " + text;
    } else if (type == "lost-update") {
      text = "The final stock was " + HtmlEscape(Text(a, "final_stock")) + " where " +
             HtmlEscape(Range(a, "expected_stock")) + " was expected. " + text;
    } else if (a.contains("final")) {
      text = "The final value was " + HtmlEscape(Text(a, "final")) + " where " +
             HtmlEscape(Range(a, "expected")) + " was expected. " + text;
    }
  } else {
    text = "At <b>" + Seconds(st.at) + "</b>" +
           (key.empty() ? std::string()
                        : " on <code>" + HtmlEscape(Truncated(key, 100)) + "</code>");
    if (auto stuck = a.find("stuck_ms"); stuck != a.end() && stuck->is_number()) {
      text += ": every acquire refused for " +
              HtmlEscape(FormatDurationNs(stuck->get<double>() * 1e6));
    }
    text += ".";
  }
  if (st.overlap_start >= 0) {
    text += " Two holders for <b>" +
            HtmlEscape(FormatDurationNs(static_cast<double>(st.overlap_end - st.overlap_start))) +
            "</b> (" + Seconds(st.overlap_start) + " \xE2\x80\x93 " + Seconds(st.overlap_end) +
            ").";
  }
  std::string out = "<div class=\"story\"><p class=\"story-text\">" + text + "</p>";
  out += "<p class=\"story-cause\">" + FaultSentence(model, st.cause);
  std::vector<std::string> others;
  for (int64_t i : st.active) {
    if (i == st.cause.fault) continue;
    others.push_back(HtmlEscape(model.faults()[static_cast<size_t>(i)].label));
  }
  if (!others.empty()) {
    out += " Also in force: ";
    for (size_t i = 0; i < others.size() && i < 6; ++i) out += (i ? "; " : "") + others[i];
    if (others.size() > 6) out += "; \xE2\x80\xA6";
    out += ".";
  }
  out += "</p>" + StorySvg(model, st) + "</div>";
  return out;
}

// True when `text` holds `lower_needle` in any letter case.
bool ContainsIgnoringCase(std::string_view text, std::string_view lower_needle) {
  auto same = [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; };
  return std::search(text.begin(), text.end(), lower_needle.begin(), lower_needle.end(), same) !=
         text.end();
}

// --- Availability ------------------------------------------------------------

// Why the others did not: refused (a definite no: held by another, or the
// request was never sent) or in doubt (no answer in time). Empty for results
// written before the checker counted refusals.
std::string AnsweredText(const nlohmann::json& part, int64_t ok, int64_t attempts) {
  auto refused = part.is_object() ? part.find("refused") : part.end();
  if (!part.is_object() || refused == part.end() || !refused->is_number_integer()) return "";
  const int64_t busy = std::clamp<int64_t>(refused->get<int64_t>(), 0, attempts - ok);
  return "; " + WithThousands(busy) + " refused (held by another or not sent), " +
         WithThousands(attempts - ok - busy) + " in doubt (no answer)";
}

std::string AvailabilityHtml(const nlohmann::json& stats, const ReportModel& model) {
  if (!stats.is_object() || !stats.contains("inside_faults")) return "";
  std::string out = "<div class=\"avail\">";
  // Counts from results.json, which may come from anywhere: never trusted
  // to have the right types.
  auto count = [](const nlohmann::json& j, const char* name, int64_t otherwise) {
    if (!j.is_object()) return otherwise;
    auto it = j.find(name);
    return it != j.end() && it->is_number_integer() ? it->get<int64_t>() : otherwise;
  };
  for (const char* part : {"inside_faults", "outside_faults"}) {
    auto found = stats.find(part);
    const nlohmann::json& s = found != stats.end() ? *found : stats;
    const int64_t attempts = count(s, "attempts", 0), ok = count(s, "ok", 0);
    const double share = attempts > 0 ? static_cast<double>(ok) / static_cast<double>(attempts) : 0;
    char width[32];
    std::snprintf(width, sizeof width, "%.1f", 100.0 * share);
    out += std::string("<div class=\"avail-box\"><div class=\"avail-title\">") +
           (part == std::string("inside_faults") ? "inside fault windows"
                                                 : "outside fault windows") +
           "</div><div class=\"avail-num\">" + (attempts > 0 ? Percent(share) : "\xE2\x80\x93") +
           "</div><div class=\"bar\"><span style=\"width:" + width + "%\"></span></div>"
           "<div class=\"muted\">" + WithThousands(ok) + " of " + WithThousands(attempts) +
           " acquire attempts got the lock" + AnsweredText(s, ok, attempts) + "</div></div>";
  }
  out += "</div>";
  auto windows = stats.find("windows");
  if (windows == stats.end() || !windows->is_array() || windows->empty()) return out;
  std::map<int64_t, const FaultView*> by_window;
  for (const auto& f : model.faults()) {
    if (f.window >= 0) by_window[f.window] = &f;
  }
  out += "<table class=\"grid\"><tr><th>#</th><th>fault</th><th>from</th><th>to</th>"
         "<th>attempts</th><th>ok</th><th>availability</th><th>first grant after</th></tr>";
  size_t shown = 0;
  for (const auto& w : *windows) {
    if (!w.is_object()) continue;
    if (shown++ == 500) break;
    const int64_t n = count(w, "window", -1);
    auto f = by_window.find(n);
    // The model's window when it has it (it also knows begins recorded
    // without an invoke), else the checker's figures.
    const FaultView* fault = f != by_window.end() ? f->second : nullptr;
    const std::string label = fault ? fault->label : Text(w, "family");
    const std::string family = fault ? fault->family : Text(w, "family");
    auto ms = [&](const char* name) {
      auto it = w.find(name);
      if (it == w.end() || !it->is_number()) return std::string("\xE2\x80\x93");
      return Seconds(static_cast<int64_t>(it->get<double>() * 1e6));
    };
    const std::string from = fault ? Seconds(fault->start) : ms("begin_ms");
    const std::string to = !fault ? ms("end_ms") : fault->open ? "not healed" : Seconds(fault->end);
    out += "<tr><td class=\"n\">" + std::to_string(n) + "</td><td><span class=\"fam fam-" +
           HtmlEscape(family) + "\">" + HtmlEscape(family) + "</span> " +
           HtmlEscape(Truncated(label, 200)) + "</td><td class=\"n\">" + from +
           "</td><td class=\"n\">" + to + "</td><td class=\"n\">" +
           FormatStat("attempts", w.value("attempts", nlohmann::json())) + "</td><td class=\"n\">" +
           FormatStat("ok", w.value("ok", nlohmann::json())) + "</td><td class=\"n\">" +
           FormatStat("availability", w.value("availability", nlohmann::json())) +
           "</td><td class=\"n\">" +
           FormatStat("recovery_ms", w.value("recovery_ms", nlohmann::json())) +
           "</td></tr>";
  }
  return out + "</table>";
}

std::string FaultsHtml(const ReportModel& model) {
  if (model.faults().empty()) return "<p class=\"muted\">No faults.</p>";
  std::string out =
      "<table class=\"grid\"><tr><th>lane</th><th>from</th><th>to</th><th>what</th></tr>";
  size_t shown = 0;
  for (const auto& f : model.faults()) {
    if (shown++ == 1000) {
      out += "<tr><td colspan=\"4\" class=\"muted\">\xE2\x80\xA6 " +
             std::to_string(model.faults().size() - 1000) + " more on the timeline</td></tr>";
      break;
    }
    out += "<tr" + std::string(f.effective ? "" : " class=\"muted\"") +
           "><td><span class=\"fam fam-" + HtmlEscape(f.family) + "\">" + HtmlEscape(f.family) +
           "</span></td><td class=\"n\">" + Seconds(f.start) + "</td><td class=\"n\">" +
           (f.point ? "" : f.open ? std::string("not healed") : Seconds(f.end)) + "</td><td>" +
           HtmlEscape(f.label) + (f.effective ? "" : " (no effect)") + "</td></tr>";
  }
  return out + "</table>";
}


std::string RenderAnomaly(const nlohmann::json& a, size_t number, const ReportModel& model) {
  std::set<int64_t> indices;
  CollectOpIndices(a, &indices);
  std::string ops_attr;
  for (int64_t i : indices) ops_attr += (ops_attr.empty() ? "" : ",") + std::to_string(i);

  const std::string type = a.is_object() ? Text(a, "type") : "";
  std::string out = "<div class=\"anomaly\" id=\"anomaly-" + std::to_string(number) +
                    "\" data-ops=\"" + ops_attr + "\"" + (a.is_object() ? SpanAttr(a) : "") + ">";
  out += "<div class=\"ahead\"><span class=\"num\">" + std::to_string(number) +
         "</span><span class=\"atype\">" + HtmlEscape(type.empty() ? "anomaly" : type) + "</span>";
  if (std::string cls = Text(a, "class"); !cls.empty()) {
    out += " <span class=\"aclass\">" + HtmlEscape(Truncated(cls, 100)) + "</span>";
  }
  if (std::string key = Text(a, "key"); !key.empty()) {
    out += " key <code>" + HtmlEscape(Truncated(key, 200)) + "</code>";
  }
  if (std::string checker = Text(a, "checker"); !checker.empty()) {
    out += " <span class=\"checker\">" + HtmlEscape(checker) + "</span>";
  }
  if (!indices.empty()) out += " <button class=\"show\">show on timeline</button>";
  out += "</div>";
  if (!a.is_object()) return out + RenderValue(a, 0) + "</div>";
  const std::string story = StoryHtml(model, a);
  out += story;

  std::string record;
  if (auto ops = a.find("ops"); ops != a.end()) {
    record += "<div class=\"aops\"><span class=\"label\">ops</span> " + RenderValue(*ops, 0) +
              "</div>";
  }
  std::string rows;
  for (const auto& [name, v] : a.items()) {
    if (name == "type" || name == "ops" || name == "key" || name == "checker") continue;
    rows += "<tr><th>" + HtmlEscape(name) + "</th><td>" + RenderValue(v, 1) + "</td></tr>";
  }
  if (!rows.empty()) record += "<table class=\"kv fields\">" + rows + "</table>";
  if (story.empty()) return out + record + "</div>";
  return out + "<details class=\"record\"><summary>the checker's record</summary>" + record +
         "</details></div>";
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
  h.reserve(model.row_count() * 14 + model.hold_count() * 16 + 65536);
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
       "<a href=\"#availability\">availability</a><a href=\"#faults\">faults</a>"
       "<a href=\"#timeline\">timeline</a><a href=\"#plots\">latency &amp; throughput</a>"
       "<a href=\"#counts\">op counts</a><a href=\"#config\">config</a></nav>\n<main>";

  // Checkers.
  h += "<section id=\"checkers\"><h2>Checkers</h2><table class=\"grid\"><tr><th>checker</th>"
       "<th>verdict</th><th>anomalies</th><th>reason</th><th>stats</th></tr>";
  for (const auto& c : r.checkers()) {
    h += "<tr><td>" + HtmlEscape(c.name) + "</td><td><span class=\"badge " + VerdictClass(c.valid) +
         "\">" + VerdictText(c.valid) + "</span></td><td class=\"n\">" +
         Num(static_cast<int64_t>(c.anomalies.size())) + "</td><td>" + HtmlEscape(c.reason) +
         "</td><td>" + (c.stats.is_null() || c.stats.empty() ? "" : RenderStats(c.stats, "", 0)) +
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
    // The first few as markup; the rest as text the script turns into
    // markup after the first frame, so hundreds of stories (SVG, tables)
    // cost no parsing or layout before the timeline shows. Safe as the
    // text of a script element: every value in it is escaped, so no '<'
    // of a value can end the element; checked all the same.
    size_t number = 0;
    std::string later;
    for (const auto& a : anomalies) {
      if (number == options.max_anomalies) break;
      ++number;
      (number <= options.inline_anomalies ? h : later) += RenderAnomaly(a, number, model);
    }
    if (!later.empty()) {
      if (ContainsIgnoringCase(later, "</script") || later.find("<!--") != std::string::npos) {
        h += later;
      } else {
        h += "<div id=\"anomalies-later\"></div><script type=\"text/html\" id=\"anomalies-more\">" +
             later + "</script><noscript><p class=\"muted\">" +
             Num(static_cast<int64_t>(number - options.inline_anomalies)) +
             " more anomalies show with JavaScript.</p></noscript>";
      }
    }
    if (anomalies.size() > options.max_anomalies) {
      h += "<p class=\"muted\">" + Num(static_cast<int64_t>(anomalies.size() - options.max_anomalies)) +
           " more anomalies are in results.json.</p>";
    }
  }
  h += "</section>\n";

  // Availability: the checker's figures, or computed here for older runs.
  nlohmann::json availability;
  for (const auto& c : r.checkers()) {
    if (c.name == "availability") availability = c.stats;
  }
  if (!availability.is_object()) availability = AvailabilityChecker().Check(history).stats;
  h += "<section id=\"availability\"><h2>Availability</h2><p class=\"muted\">Acquire attempts "
       "that got the lock, invoked while some fault window was open and while none was.</p>" +
       AvailabilityHtml(availability, model) + "</section>\n";
  h += "<section id=\"faults\"><h2>Faults (" + Num(static_cast<int64_t>(model.faults().size())) +
       ")</h2>" + FaultsHtml(model) + "</section>\n";

  // Timeline and plots: drawn by the script from the data blob.
  h += R"(<section id="timeline"><h2>Timeline</h2>
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
<section id="plots"><h2>Latency &amp; throughput</h2>
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
  h += "</div>\n";
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
  auto history = ReadHistoryJsonl(run_dir + "/history.jsonl", /*allow_truncated_tail=*/true,
                                  nullptr, options.max_history_bytes);
  if (!history) return Error{history.error()};
  return WriteHtmlReport(*history, docs->results, docs->config, run_dir + "/report.html", options);
}

Status WriteHtmlReport(const std::string& run_dir) {
  return WriteHtmlReport(run_dir, HtmlReportOptions());
}

}  // namespace locksmith
