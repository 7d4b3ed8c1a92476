#include "reports/fault_ledger_html.h"

#include <algorithm>
#include <cstdio>

#include "reports/escape.h"
#include "reports/html_text.h"

namespace locksmith {
namespace {

constexpr const char* kCounts[] = {"planned", "fired", "applied", "healed", "observed"};

std::string Cell(const std::string& text, const char* cls = nullptr) {
  return std::string("<td") + (cls != nullptr ? std::string(" class=\"") + cls + "\"" : "") +
         ">" + text + "</td>";
}

// A step's yes / no, marked for the eye.
std::string Mark(const nlohmann::json& row, const char* key) {
  const bool yes = FieldFlag(row, key);
  return Cell(yes ? "\xE2\x9C\x93" : "\xE2\x9C\x97", yes ? "n" : "n bad");
}

// "1 of 3": of a family's observed stalls of lock holders, those that
// outlived their lease; "" for a family that stalls no holder.
std::string PastLease(const nlohmann::json& family) {
  auto past = family.find("past_lease");
  if (past == family.end() || !past->is_number()) return "";
  return std::to_string(FieldCount(family, "past_lease")) + " of " +
         std::to_string(FieldCount(family, "observed"));
}

bool AnyPastLease(const nlohmann::json& families) {
  return std::any_of(families.begin(), families.end(), [](const nlohmann::json& f) {
    return f.is_object() && !PastLease(f).empty();
  });
}

std::string FamiliesTable(const nlohmann::json& families) {
  const bool any_past_lease = AnyPastLease(families);
  std::string out = "<table class=\"grid\"><tr><th>family</th>";
  for (const char* count : kCounts) out += std::string("<th>") + count + "</th>";
  if (any_past_lease) out += "<th>past lease</th>";
  out += "</tr>";
  for (const auto& f : families) {
    if (!f.is_object()) continue;
    // Fewer observed than planned stands out.
    const bool short_of_plan = FieldCount(f, "observed") < FieldCount(f, "planned");
    out += "<tr>" + Cell(HtmlEscape(FieldText(f, "family")));
    for (const char* count : kCounts) {
      const bool flagged = short_of_plan && std::string(count) == "observed";
      out += Cell(std::to_string(FieldCount(f, count)), flagged ? "n bad" : "n");
    }
    if (any_past_lease) out += Cell(PastLease(f), "n");
    out += "</tr>";
  }
  return out + "</table>";
}

std::string StepsTable(const nlohmann::json& rows) {
  std::string out =
      "<table class=\"grid\"><tr><th>step</th><th>planned</th><th>fired</th><th>applied</th>"
      "<th>healed</th><th>observed</th><th>at</th><th>done</th></tr>";
  for (const auto& row : rows) {
    char at[32] = "";
    if (row.contains("at_s") && row["at_s"].is_number()) {
      std::snprintf(at, sizeof at, "%.3f s", row["at_s"].get<double>());
    }
    std::string done = FieldText(row, "done");
    if (FieldFlag(row, "past_lease")) done += ", past its lease";
    if (const std::string error = FieldText(row, "error"); !error.empty()) {
      done += (done.empty() ? "" : " \xE2\x80\x94 ") + error;
    }
    out += "<tr>" + Cell(std::to_string(FieldCount(row, "step")), "n") +
           Cell(HtmlEscape(FieldText(row, "what"))) + Mark(row, "fired") +
           Mark(row, "applied") + Mark(row, "healed") + Mark(row, "observed") + Cell(at, "n") +
           Cell(HtmlEscape(done)) + "</tr>";
  }
  return out + "</table>";
}

}  // namespace

std::string FaultLedgerHtml(const nlohmann::json& faults) {
  if (!faults.is_object()) return "";
  // results.json may come from anyone: a member of the wrong type reads as absent.
  auto list = [&](const char* key) {
    auto it = faults.find(key);
    return it != faults.end() && it->is_array() ? *it : nlohmann::json::array();
  };
  const nlohmann::json families = list("families");
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& row : list("rows")) {
    if (row.is_object() && row.contains("step")) steps.push_back(row);
  }
  if (families.empty() && steps.empty()) return "";
  std::string out =
      "<h3>Fault ledger</h3><p class=\"muted\">Every fault the run planned: whether its op "
      "fired, applied without an error, was healed, and was observed: seen to take effect by "
      "its family's own check from outside.</p>" +
      FamiliesTable(families);
  if (AnyPastLease(families)) {
    out += "<p class=\"muted\">Past lease: of the observed stalls of lock holders, those that "
           "outlived the holder's lease (a stall within it took effect all the same).</p>";
  }
  if (!steps.empty()) out += StepsTable(steps);
  if (const std::string line = FieldText(faults, "unfulfilled"); !line.empty()) {
    out += "<p class=\"bad\">Not done as asked: " + HtmlEscape(line) + "</p>";
  }
  return out;
}

}  // namespace locksmith
