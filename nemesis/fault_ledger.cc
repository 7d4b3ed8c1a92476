#include "nemesis/fault_ledger.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <utility>

#include "nemesis/fault_descriptions.h"

namespace locksmith {
namespace {

// A number as people read it: "1.5", "10".
std::string Number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

// An op of `family` in words, as the family tells its faults (its
// FaultLook); the op's name alone for a family the registry does not know.
std::string FaultWords(const std::string& family, const FaultOp& op) {
  static const FaultLooks looks = RegisteredFaultLooks();
  auto it = looks.find(family);
  if (it == looks.end() || it->second.describe == nullptr) return op.f;
  return it->second.describe(op);
}

// How a step is planned: " after acquire of lock-0", " 200 ms after ...",
// " at 300 ms".
std::string WhenWords(const ScheduledFault& fault) {
  if (!fault.after) return " at " + std::to_string(fault.at_ms) + " ms";
  std::string when = fault.at_ms > 0 ? " " + std::to_string(fault.at_ms) + " ms" : "";
  when += " after " + fault.after->f;
  if (!fault.after->key.empty()) when += " of " + fault.after->key;
  return when;
}

bool ObservedField(const nlohmann::json& value, bool wanted) {
  if (!value.is_object()) return false;
  auto it = value.find("observed");
  return it != value.end() && it->is_boolean() && it->get<bool>() == wanted;
}

std::string Count(int n, const std::string& one) {
  return std::to_string(n) + " " + one + (n == 1 ? "" : "s");
}

}  // namespace

FaultLedger FaultLedger::Plan(const std::vector<ScheduledFault>& schedule,
                              const LedgerRequest& request) {
  FaultLedger ledger;
  ledger.request_ = request;
  ledger.scripted_ = std::any_of(schedule.begin(), schedule.end(),
                                 [](const ScheduledFault& f) { return f.step > 0; });
  for (const ScheduledFault& fault : schedule) {
    if (!ledger.scripted_ && !fault.mark.begins) continue;  // its window's row says it
    LedgerRow row;
    row.step = fault.step;
    row.family = fault.mark.family;
    row.window = fault.mark.window;
    row.begins = fault.mark.begins;
    row.f = fault.op.f;
    row.what = FaultWords(row.family, fault.op) + (ledger.scripted_ ? WhenWords(fault) : "");
    row.at_ms = fault.at_ms;
    ledger.rows_.push_back(std::move(row));
  }
  return ledger;
}

void FaultLedger::Observe(const History& history, const FaultConfirmations& confirmations,
                          bool teardown_healed) {
  struct Window {
    bool said_yes = false, said_no = false;  // an op's "observed"
    std::optional<size_t> begin_done;        // the begin op's completion
    bool end_seen = false, end_ok = false;
  };
  std::map<int64_t, Window> windows;
  for (LedgerRow& row : rows_) {
    row.fired = row.applied = row.healed = row.observed = false;
    row.past_lease.reset();
    row.done.clear();
    row.at_s = -1;
    row.error.clear();
  }
  // The row an op of `mark` is: a step by its window and phase; a window by
  // its begin (the end op is no row of its own).
  auto row_of = [&](const FaultMark& mark) -> LedgerRow* {
    for (LedgerRow& row : rows_) {
      if (row.window != mark.window || row.family != mark.family) continue;
      if (row.begins == mark.begins) return &row;
    }
    return nullptr;
  };
  for (size_t i = 0; i < history.size(); ++i) {
    const Op& op = history[i];
    if (!op.is_nemesis() || op.fault.is_null()) continue;
    auto mark = FaultMarkFromJson(op.fault);
    if (!mark) continue;
    LedgerRow* row = row_of(*mark);
    if (op.type == OpType::kInvoke) {
      if (row != nullptr) row->fired = true;
      continue;
    }
    Window& w = windows[mark->window];
    w.said_yes |= ObservedField(op.value, true);
    w.said_no |= ObservedField(op.value, false);
    if (mark->begins) {
      w.begin_done = i;
    } else {
      w.end_seen = true;
      w.end_ok = op.error.empty();
    }
    if (row == nullptr) continue;
    row->fired = true;  // a completion without its invoke (a history cut short) still ran
    row->applied = op.error.empty();
    row->error = op.error;
    row->at_s = static_cast<double>(op.time) / 1e9;
    row->done = FaultWords(mark->family, {op.f, op.value});
  }
  for (LedgerRow& row : rows_) {
    Window& w = windows[row.window];
    bool observed = w.said_yes && !w.said_no;
    std::optional<bool> past_lease;
    if (auto c = confirmations.find(row.family); c != confirmations.end() && w.begin_done) {
      if (auto confirmed = c->second(history, *w.begin_done)) {
        observed = confirmed->took_effect && !w.said_no;
        past_lease = confirmed->past_lease;
      }
    }
    const LedgerRow* begin = row.begins ? &row : row_of({row.window, row.family, true});
    const bool begin_applied = begin != nullptr && begin->applied;
    row.observed = observed;
    if (observed) row.past_lease = past_lease;  // a stall that never was outlived nothing
    row.healed = row.begins ? (w.end_seen ? w.end_ok : teardown_healed && begin_applied)
                            : row.applied;
  }
}

std::vector<LedgerTotals> FaultLedger::Totals() const {
  std::vector<LedgerTotals> totals;
  auto of = [&](const std::string& family) -> LedgerTotals& {
    for (auto& t : totals) {
      if (t.family == family) return t;
    }
    totals.push_back({family});
    return totals.back();
  };
  for (const auto& family : request_.families) of(family);
  // A family counts its faults: windows, i.e. the rows that begin one.
  for (const LedgerRow& row : rows_) {
    if (!row.begins) continue;
    LedgerTotals& t = of(row.family);
    ++t.planned;
    t.fired += row.fired;
    t.applied += row.applied;
    t.healed += row.healed;
    t.observed += row.observed;
    if (row.past_lease) t.past_lease = t.past_lease.value_or(0) + *row.past_lease;
  }
  return totals;
}

std::vector<std::string> FaultLedger::Problems() const {
  std::vector<std::string> problems;
  if (scripted_) {
    std::set<int64_t> opened;  // windows whose begin step fired
    for (const LedgerRow& row : rows_) {
      if (row.begins && row.fired) opened.insert(row.window);
    }
    for (const LedgerRow& row : rows_) {
      const std::string step = "step " + std::to_string(row.step) + " (" + row.what + ")";
      if (!row.fired) {
        // An end whose fault never began is the begin step's problem.
        if (row.begins || opened.contains(row.window)) problems.push_back(step + " never fired");
      } else if (!row.applied) {
        problems.push_back(step + " failed: " + row.error);
      } else if (row.begins && !row.observed) {
        problems.push_back(step + " was not observed: no check saw it take effect");
      }
    }
    return problems;
  }
  for (const LedgerTotals& t : Totals()) {
    if (std::find(request_.families.begin(), request_.families.end(), t.family) ==
        request_.families.end()) {
      continue;
    }
    const std::string family = "nemesis " + t.family;
    if (t.planned == 0) {
      problems.push_back(family + " planned no fault: the first comes one interval (" +
                         Number(request_.interval_s) + " s) into the workload, which lasts " +
                         Number(request_.time_limit_s) + " s");
    } else if (t.applied == 0) {
      std::string first_error;
      for (const LedgerRow& row : rows_) {
        if (row.family == t.family && !row.error.empty()) {
          first_error = ": " + row.error;
          break;
        }
      }
      problems.push_back(family + ": none of its " + Count(t.planned, "fault") +
                         " was applied" + first_error);
    } else if (t.observed == 0) {
      problems.push_back(family + ": none of its " + Count(t.planned, "fault") +
                         " was observed (no check saw one take effect)");
    }
  }
  return problems;
}

std::string FaultLedger::Unfulfilled() const {
  const std::vector<std::string> problems = Problems();
  if (problems.empty()) return "";
  if (problems.size() == 1) return problems[0];
  return problems[0] + " (and " + std::to_string(problems.size() - 1) +
         " more: see \"faults\" in results.json)";
}

std::string FaultLedger::Progress() const {
  int planned = 0, ran = 0;
  for (const LedgerRow& row : rows_) {
    if (!scripted_ && !row.begins) continue;
    ++planned;
    ran += row.fired;
  }
  if (planned == 0) return "";
  return std::to_string(ran) + " of " + std::to_string(planned) + " planned " +
         (scripted_ ? "steps" : "faults") + " ran";
}

nlohmann::json FaultLedger::ToJson() const {
  nlohmann::json families = nlohmann::json::array();
  for (const LedgerTotals& t : Totals()) {
    families.push_back({{"family", t.family},
                        {"planned", t.planned},
                        {"fired", t.fired},
                        {"applied", t.applied},
                        {"healed", t.healed},
                        {"observed", t.observed}});
    if (t.past_lease) families.back()["past_lease"] = *t.past_lease;
  }
  nlohmann::json rows = nlohmann::json::array();
  for (const LedgerRow& r : rows_) {
    nlohmann::json row;
    if (r.step > 0) row["step"] = r.step;
    row.update({{"family", r.family},
                {"window", r.window},
                {"phase", r.begins ? "begin" : "end"},
                {"f", r.f},
                {"what", r.what},
                {"at_ms", r.at_ms},
                {"fired", r.fired},
                {"applied", r.applied},
                {"healed", r.healed},
                {"observed", r.observed}});
    if (r.past_lease) row["past_lease"] = *r.past_lease;
    if (r.at_s >= 0) row["at_s"] = std::round(r.at_s * 1000) / 1000;
    if (!r.done.empty()) row["done"] = r.done;
    if (!r.error.empty()) row["error"] = r.error;
    rows.push_back(std::move(row));
  }
  nlohmann::json j = {{"planned_by", scripted_ ? "steps" : "schedule"},
                      {"requested", request_.families},
                      {"time_limit_s", request_.time_limit_s},
                      {"interval_s", request_.interval_s},
                      {"families", std::move(families)},
                      {"rows", std::move(rows)}};
  if (std::string line = Unfulfilled(); !line.empty()) j["unfulfilled"] = line;
  return j;
}

Result<FaultLedger> FaultLedger::FromJson(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("rows") || !j["rows"].is_array()) {
    return Error{"\"faults\" must be an object with \"rows\""};
  }
  FaultLedger ledger;
  try {
    ledger.scripted_ = j.value("planned_by", std::string()) == "steps";
    ledger.request_.families =
        j.value("requested", nlohmann::json::array()).get<std::vector<std::string>>();
    ledger.request_.time_limit_s = j.value("time_limit_s", 0.0);
    ledger.request_.interval_s = j.value("interval_s", 0.0);
    for (const auto& r : j["rows"]) {
      LedgerRow row;
      row.step = r.value("step", 0);
      row.family = r.at("family").get<std::string>();
      row.window = r.at("window").get<int64_t>();
      row.begins = r.value("phase", std::string("begin")) == "begin";
      row.f = r.value("f", std::string());
      row.what = r.value("what", std::string());
      row.at_ms = r.value("at_ms", int64_t{0});
      ledger.rows_.push_back(std::move(row));
    }
  } catch (const nlohmann::json::exception& e) {
    return Error{std::string("\"faults\": ") + e.what()};
  }
  return ledger;
}

}  // namespace locksmith
