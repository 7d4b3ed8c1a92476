#include "reports/shrink_page.h"

#include <sstream>

#include "reports/escape.h"
#include "reports/html_text.h"
#include "reports/suite_report.h"

namespace locksmith {
namespace {

std::string ShrinkPageNumber(const nlohmann::json& j) {
  if (!j.is_number()) return "?";
  std::ostringstream s;
  s << j.get<double>();
  return s.str();
}

void FaultsTable(const nlohmann::json& shrink, std::ostringstream& h) {
  h << "<h2>Faults</h2>\n<table><tr><th>window</th><th>fault</th><th>at</th>"
       "<th>result</th></tr>\n";
  for (const auto& w : shrink.value("windows", nlohmann::json::array())) {
    const bool kept = FieldFlag(w, "kept");
    h << "<tr class=\"" << (kept ? "invalid" : "valid") << "\"><td>"
      << HtmlEscape(FieldText(w, "window")) << "</td><td>"
      << FamilyBadge(FieldText(w, "family"), FieldText(w, "family")) << " "
      << HtmlEscape(FieldText(w, "what")) << "</td><td>" << ShrinkPageNumber(w.value("at_s", nlohmann::json()))
      << " s</td><td>" << (kept ? "kept: needed" : "removed") << "</td></tr>\n";
  }
  h << "</table>\n";
}

std::string TryCell(const nlohmann::json& t) {
  std::string text = HtmlEscape(FieldText(t, "verdict"));
  std::string kinds;
  const nlohmann::json anomalies = t.value("anomalies", nlohmann::json::object());
  for (const auto& [kind, n] : anomalies.items()) {
    kinds += (kinds.empty() ? "" : ", ") + HtmlEscape(kind) + " " + HtmlEscape(n.dump());
  }
  if (!kinds.empty()) text += " (" + kinds + ")";
  const std::string run = FieldText(t, "run");
  if (!run.empty()) {
    text = "<a href=\"" + HrefOfPath(run + "/report.html") + "\">" + text + "</a>";
  }
  if (!FieldText(t, "error").empty()) {
    text += "<br><small>" + HtmlEscape(Truncated(FieldText(t, "error"), 300)) + "</small>";
  }
  return text;
}

void CandidatesTable(const nlohmann::json& shrink, std::ostringstream& h) {
  h << "<h2>Candidates</h2>\n<table><tr><th>#</th><th>phase</th><th>windows</th>"
       "<th>time limit</th><th>tries</th><th>result</th></tr>\n";
  for (const auto& c : shrink.value("candidates", nlohmann::json::array())) {
    const nlohmann::json reproduced = c.value("reproduced", nlohmann::json());
    const char* cls = reproduced == true ? "invalid" : reproduced == false ? "valid" : "unknown";
    std::string windows;
    for (const auto& w : c.value("windows", nlohmann::json::array())) {
      windows += (windows.empty() ? "" : ", ") + w.dump();
    }
    h << "<tr><td>" << HtmlEscape(FieldText(c, "candidate")) << "</td><td>"
      << HtmlEscape(FieldText(c, "phase")) << "</td><td>"
      << (windows.empty() ? "none" : HtmlEscape(windows)) << "</td><td>"
      << ShrinkPageNumber(c.value("time_limit_s", nlohmann::json())) << " s</td><td>";
    int t = 0;
    for (const auto& shown : c.value("tries", nlohmann::json::array())) {
      ++t;
      h << (t > 1 ? "<br>" : "") << "try " << t << ": " << TryCell(shown);
    }
    h << "</td><td class=\"" << cls << "\">"
      << (reproduced == true ? "reproduced" : reproduced == false ? "not reproduced"
                                                                  : "not decided (stopped)")
      << "</td></tr>\n";
  }
  h << "</table>\n";
}

}  // namespace

std::string RenderShrinkPage(const nlohmann::json& shrink) {
  std::ostringstream h;
  const std::string kind = FieldText(shrink, "anomaly");
  h << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>shrink "
    << HtmlEscape(FieldText(shrink, "run")) << "</title>" << IndexPageStyle()
    << "</head><body>\n<h1>shrink: " << HtmlEscape(kind) << "</h1>\n<p>run "
    << HtmlEscape(FieldText(shrink, "run")) << ", seed " << HtmlEscape(FieldText(shrink, "seed"))
    << "; " << HtmlEscape(FieldText(shrink, "tries_per_candidate"))
    << " tries a candidate (any that shows " << HtmlEscape(kind) << " reproduces); "
    << HtmlEscape(FieldText(shrink, "runs")) << " runs in "
    << ShrinkPageNumber(shrink.value("elapsed_s", nlohmann::json())) << " s</p>\n";
  const std::string stopped = FieldText(shrink, "stopped");
  if (!stopped.empty()) {
    h << "<p class=\"unknown\">stopped early (" << HtmlEscape(stopped)
      << "): the smallest reproducing set found so far</p>\n";
  }
  const nlohmann::json limits = shrink.value("time_limit_s", nlohmann::json::object());
  const nlohmann::json rate = shrink.value("rate", nlohmann::json::object());
  if (shrink.value("minimal", nlohmann::json()).is_string()) {
    h << "<p class=\"invalid\"><a href=\"minimal.json\">minimal.json</a>: "
      << HtmlEscape(kind) << " in " << HtmlEscape(FieldText(rate, "reproduced")) << " of "
      << HtmlEscape(FieldText(rate, "tries")) << " tries; time limit "
      << ShrinkPageNumber(limits.value("run", nlohmann::json())) << " s &rarr; "
      << ShrinkPageNumber(limits.value("minimal", nlohmann::json())) << " s</p>\n";
  } else {
    h << "<p class=\"unknown\">the replay of every fault did not show " << HtmlEscape(kind)
      << ": no minimal scenario</p>\n";
  }
  FaultsTable(shrink, h);
  CandidatesTable(shrink, h);
  h << "</body></html>\n";
  return h.str();
}

}  // namespace locksmith
