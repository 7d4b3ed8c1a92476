#include "reports/fault_tables_html.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "base/text.h"
#include "reports/escape.h"
#include "reports/html_text.h"
#include "reports/run_summary.h"
#include "reports/stats_html.h"

namespace locksmith {
namespace {

constexpr size_t kMaxWindows = 500;
constexpr size_t kMaxFaults = 1000;

int64_t Count(const nlohmann::json& j, const char* name, int64_t otherwise) {
  if (!j.is_object()) return otherwise;
  auto it = j.find(name);
  return it != j.end() && it->is_number_integer() ? it->get<int64_t>() : otherwise;
}

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

std::string AvailabilityBox(const nlohmann::json& stats, const char* part, const char* title) {
  auto found = stats.find(part);
  const nlohmann::json& s = found != stats.end() ? *found : stats;
  const int64_t attempts = Count(s, "attempts", 0), ok = Count(s, "ok", 0);
  const double share = attempts > 0 ? static_cast<double>(ok) / static_cast<double>(attempts) : 0;
  char width[32];
  std::snprintf(width, sizeof width, "%.1f", 100.0 * share);
  return std::string("<div class=\"avail-box\"><div class=\"avail-title\">") + title +
         "</div><div class=\"avail-num\">" + (attempts > 0 ? Percent(share) : "\xE2\x80\x93") +
         "</div><div class=\"bar\"><span style=\"width:" + width + "%\"></span></div>"
         "<div class=\"muted\">" + WithThousands(ok) + " of " + WithThousands(attempts) +
         " acquire attempts got the lock" + AnsweredText(s, ok, attempts) + "</div></div>";
}

// One window of the checker's: the model's fault when it has it (it also
// knows begins recorded without an invoke), else the checker's figures.
std::string WindowRow(const nlohmann::json& w, const ReportModel& model,
                      const std::map<int64_t, size_t>& by_window) {
  const int64_t n = Count(w, "window", -1);
  auto found = by_window.find(n);
  const size_t i = found != by_window.end() ? found->second : SIZE_MAX;
  const FaultView* fault = i != SIZE_MAX ? &model.faults()[i] : nullptr;
  const std::string label = fault ? fault->label : FieldText(w, "family");
  const std::string badge = fault ? FamilyBadge(fault->family, model.LaneOfFault(i).look.label)
                                  : FamilyBadge(FieldText(w, "family"), FieldText(w, "family"));
  auto ms = [&](const char* name) {
    auto it = w.find(name);
    if (it == w.end() || !it->is_number()) return std::string("\xE2\x80\x93");
    return FormatSeconds(MillisToNs(it->get<double>()));
  };
  const std::string from = fault ? FormatSeconds(fault->start) : ms("begin_ms");
  const std::string to =
      !fault ? ms("end_ms") : fault->open ? "not healed" : FormatSeconds(fault->end);
  auto stat = [&](const char* name) { return FormatStat(name, w.value(name, nlohmann::json())); };
  return "<tr><td class=\"n\">" + std::to_string(n) + "</td><td>" + badge + " " +
         HtmlEscape(Truncated(label, 200)) + "</td><td class=\"n\">" + from +
         "</td><td class=\"n\">" + to + "</td><td class=\"n\">" + stat("attempts") +
         "</td><td class=\"n\">" + stat("ok") + "</td><td class=\"n\">" + stat("availability") +
         "</td><td class=\"n\">" + stat("recovery_ms") + "</td></tr>";
}

}  // namespace

std::string AvailabilityHtml(const nlohmann::json& stats, const ReportModel& model) {
  if (!stats.is_object() || !stats.contains("inside_faults")) return "";
  std::string out = "<div class=\"avail\">" +
                    AvailabilityBox(stats, "inside_faults", "inside fault windows") +
                    AvailabilityBox(stats, "outside_faults", "outside fault windows") + "</div>";
  auto windows = stats.find("windows");
  if (windows == stats.end() || !windows->is_array() || windows->empty()) return out;
  std::map<int64_t, size_t> by_window;
  for (size_t i = 0; i < model.faults().size(); ++i) {
    if (model.faults()[i].window >= 0) by_window[model.faults()[i].window] = i;
  }
  out += "<table class=\"grid\"><tr><th>#</th><th>fault</th><th>from</th><th>to</th>"
         "<th>attempts</th><th>ok</th><th>availability</th><th>first grant after</th></tr>";
  size_t shown = 0;
  for (const auto& w : *windows) {
    if (!w.is_object()) continue;
    if (shown++ == kMaxWindows) break;
    out += WindowRow(w, model, by_window);
  }
  return out + "</table>";
}

std::string FaultsHtml(const ReportModel& model) {
  if (model.faults().empty()) return "<p class=\"muted\">No faults.</p>";
  std::string out =
      "<table class=\"grid\"><tr><th>lane</th><th>from</th><th>to</th><th>what</th></tr>";
  for (size_t i = 0; i < model.faults().size(); ++i) {
    if (i == kMaxFaults) {
      out += "<tr><td colspan=\"4\" class=\"muted\">\xE2\x80\xA6 " +
             std::to_string(model.faults().size() - kMaxFaults) + " more on the timeline</td></tr>";
      break;
    }
    const FaultView& f = model.faults()[i];
    out += "<tr" + std::string(f.effective ? "" : " class=\"muted\"") + "><td>" +
           FamilyBadge(f.family, model.LaneOfFault(i).look.label) + "</td><td class=\"n\">" +
           FormatSeconds(f.start) + "</td><td class=\"n\">" +
           (f.point ? "" : f.open ? std::string("not healed") : FormatSeconds(f.end)) +
           "</td><td>" + HtmlEscape(f.label) + (f.effective ? "" : " (no effect)") + "</td></tr>";
  }
  return out + "</table>";
}

}  // namespace locksmith
