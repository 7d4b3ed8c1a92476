#include "reports/suite_record_reader.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "base/input_file.h"
#include "base/json_fields.h"
#include "base/option_set.h"

namespace locksmith {

namespace {

// One run of a summary's "runs", every field's type checked; its directory
// must lie inside the suite's, since `report SUITE_DIR` writes a report there.
Result<SuiteRun> SuiteRunFromJson(const nlohmann::json& j, const std::string& place) {
  JsonFields f(j, place);
  SuiteRun r;
  r.cell = f.Text("cell");
  r.repeat = static_cast<int>(f.Integer("repeat", 0, INT32_MAX));
  r.seed = f.Unsigned("seed");
  r.dir = f.Text("dir");
  r.exit_code = static_cast<int>(f.Integer("exit_code", 0, 255));
  r.verdict = f.Text("verdict");
  r.error = f.Text("error");
  if (const nlohmann::json* anomalies = f.Object("anomalies")) {
    for (const auto& [type, n] : anomalies->items()) {
      if (!n.is_number_integer() || n.get<int64_t>() < 0 || n.get<int64_t>() > INT32_MAX) {
        return Error{place + ": \"anomalies\" must count each type with a whole number"};
      }
      r.anomalies[type] = static_cast<int>(n.get<int64_t>());
    }
  }
  r.first_violation_s = f.Number("first_violation_s");
  r.availability_inside = f.Number("availability_inside");
  r.availability_outside = f.Number("availability_outside");
  r.answered_inside = f.Number("answered_inside");
  r.answered_outside = f.Number("answered_outside");
  r.acquire_p50_ms = f.Number("acquire_p50_ms");
  r.acquire_p99_ms = f.Number("acquire_p99_ms");
  r.unanswered_inside = f.Number("unanswered_inside");
  r.unanswered_outside = f.Number("unanswered_outside");
  r.in_doubt = f.Number("in_doubt");
  r.grants_per_s = f.Number("grants_per_s");
  r.ops_per_s = f.Number("ops_per_s");
  r.duration_s = f.Number("duration_s").value_or(0);
  r.lock = f.Text("lock");
  r.schedule = f.Text("schedule");
  r.faults = f.Text("faults");
  if (Status s = f.status(); !s) return Error{s.error()};
  if (!r.dir.empty() && !IsPathBelow(r.dir)) {
    return Error{place + ": \"dir\" must be a relative path inside the suite's directory, not " +
                 QuoteInput(r.dir)};
  }
  return r;
}

}  // namespace

Result<SuiteRecord> SuiteRecordFromJson(const nlohmann::json& summary) {
  JsonFields f(summary, "");
  SuiteRecord s;
  s.name = f.Text("suite");
  s.description = f.Text("description");
  s.interrupted = f.Text("interrupted");
  s.seed = f.Unsigned("seed");
  s.planned_runs = static_cast<int>(f.Integer("planned_runs", 0, INT32_MAX));
  const nlohmann::json* runs = f.Array("runs");
  const nlohmann::json* cells = f.Object("cells");
  if (Status st = f.status(); !st) return Error{st.error()};
  if (s.name.empty() || runs == nullptr) {
    return Error{"not a suite summary (an object with \"suite\" and \"runs\")"};
  }
  for (size_t i = 0; i < runs->size(); ++i) {
    auto r = SuiteRunFromJson((*runs)[i], "runs[" + std::to_string(i) + "]");
    if (!r) return Error{r.error()};
    if (std::find(s.cells.begin(), s.cells.end(), r->cell) == s.cells.end()) {
      s.cells.push_back(r->cell);
    }
    s.runs.push_back(std::move(r).value());
  }
  // Cells that had not run yet are in "cells" only.
  if (cells != nullptr) {
    for (const auto& [cell, _] : cells->items()) {
      if (std::find(s.cells.begin(), s.cells.end(), cell) == s.cells.end()) s.cells.push_back(cell);
    }
  }
  return s;
}

}  // namespace locksmith
