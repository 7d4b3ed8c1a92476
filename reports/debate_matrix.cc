#include "reports/debate_matrix.h"

#include <algorithm>
#include <map>

#include "base/json_fields.h"

namespace locksmith {
namespace {

bool Contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// A list of strings at `key` (absent: empty); a problem names the place.
Result<std::vector<std::string>> DebateStringList(const nlohmann::json& j, const char* key,
                                                  const std::string& place) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return out;
  if (!it->is_array()) return Error{place + ": \"" + key + "\" must be a list of strings"};
  for (const auto& v : *it) {
    if (!v.is_string()) return Error{place + ": \"" + key + "\" must be a list of strings"};
    out.push_back(v.get<std::string>());
  }
  return out;
}

Result<const nlohmann::json*> DebateArrayOf(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) {
    return Error{std::string("\"") + key + "\" must be a list"};
  }
  return &*it;
}

Result<std::vector<DebateRow>> DebateRowsFromJson(const nlohmann::json& j) {
  auto rows = DebateArrayOf(j, "rows");
  if (!rows) return Error{rows.error()};
  std::vector<DebateRow> out;
  for (size_t i = 0; i < (*rows)->size(); ++i) {
    JsonFields f((**rows)[i], "rows[" + std::to_string(i) + "]");
    DebateRow row{f.Text("id"), f.Text("what")};
    if (Status s = f.status(); !s) return Error{s.error()};
    if (row.id.empty()) return Error{"rows[" + std::to_string(i) + "]: \"id\" is missing"};
    out.push_back(std::move(row));
  }
  return out;
}

Result<std::vector<DebateColumn>> DebateColumnsFromJson(const nlohmann::json& j) {
  auto columns = DebateArrayOf(j, "columns");
  if (!columns) return Error{columns.error()};
  std::vector<DebateColumn> out;
  for (size_t i = 0; i < (*columns)->size(); ++i) {
    const nlohmann::json& c = (**columns)[i];
    const std::string place = "columns[" + std::to_string(i) + "]";
    if (!c.is_object()) return Error{place + " must be an object"};
    JsonFields f(c, place);
    DebateColumn column{f.Text("id"), f.Text("what"), {}, {}, f.Text("fencing") == "on"};
    if (Status s = f.status(); !s) return Error{s.error()};
    auto backends = DebateStringList(c, "backends", place);
    if (!backends) return Error{backends.error()};
    auto clients = DebateStringList(c, "clients", place);
    if (!clients) return Error{clients.error()};
    column.backends = *backends;
    column.clients = *clients;
    if (column.id.empty() || column.id.find(' ') != std::string::npos) {
      return Error{place + ": \"id\" must be a word such as SR"};
    }
    for (const auto& other : out) {
      if (other.id == column.id) return Error{place + ": two columns are named " + column.id};
    }
    out.push_back(std::move(column));
  }
  return out;
}

Result<std::vector<CannotRunCell>> CannotRunFromJson(const nlohmann::json& j,
                                                     const DebateShape& shape) {
  std::vector<CannotRunCell> out;
  if (!j.contains("cannot_run")) return out;
  auto cells = DebateArrayOf(j, "cannot_run");
  if (!cells) return Error{cells.error()};
  for (size_t i = 0; i < (*cells)->size(); ++i) {
    const std::string place = "cannot_run[" + std::to_string(i) + "]";
    JsonFields f((**cells)[i], place);
    CannotRunCell cell{f.Text("row"), f.Text("column"), f.Text("predicted"), f.Text("reason")};
    if (Status s = f.status(); !s) return Error{s.error()};
    const bool row_known = std::any_of(shape.rows.begin(), shape.rows.end(),
                                       [&](const DebateRow& r) { return r.id == cell.row; });
    const bool column_known =
        std::any_of(shape.columns.begin(), shape.columns.end(),
                    [&](const DebateColumn& c) { return c.id == cell.column; });
    if (!row_known || !column_known) {
      return Error{place + ": no row \"" + cell.row + "\" or no column \"" + cell.column + "\""};
    }
    if (cell.predicted != "valid" && cell.predicted != "invalid") {
      return Error{place + ": \"predicted\" must be valid or invalid"};
    }
    if (cell.reason.empty()) return Error{place + ": \"reason\" must say why it cannot run"};
    out.push_back(std::move(cell));
  }
  return out;
}

// Rows: the shape's, then any other a scenario names, in natural order
// ("" last: scenarios that test no debate row).
std::vector<std::string> ShownRows(const DebateShape& shape,
                                   const std::vector<DebateEntry>& entries) {
  std::vector<std::string> rows;
  for (const auto& r : shape.rows) rows.push_back(r.id);
  std::vector<std::string> others;
  for (const auto& e : entries) {
    if (!Contains(rows, e.row) && !Contains(others, e.row)) others.push_back(e.row);
  }
  std::sort(others.begin(), others.end(), [](const std::string& a, const std::string& b) {
    return a.empty() != b.empty() ? b.empty() : a < b;
  });
  rows.insert(rows.end(), others.begin(), others.end());
  return rows;
}

// Columns: the shape's, each followed by its variants seen; "?" last.
std::vector<std::string> ShownColumns(const DebateShape& shape,
                                      const std::vector<DebateEntry>& entries) {
  std::vector<std::string> columns;
  for (const auto& c : shape.columns) {
    columns.push_back(c.id);
    std::set<std::string> variants;
    for (const auto& e : entries) {
      if (e.column.rfind(c.id + " ", 0) == 0) variants.insert(e.column);
    }
    columns.insert(columns.end(), variants.begin(), variants.end());
  }
  for (const auto& e : entries) {
    if (!Contains(columns, e.column)) columns.push_back(e.column);
  }
  return columns;
}

size_t IndexIn(const std::vector<std::string>& list, const std::string& value) {
  return static_cast<size_t>(std::find(list.begin(), list.end(), value) - list.begin());
}

DebateEntry EntryOf(const DebateShape& shape, const DebateScenarioRuns& s) {
  DebateEntry e;
  e.scenario = s.facts.name;
  e.row = s.facts.row;
  e.column = DebateColumnOf(shape, s.facts);
  e.predicted_verdict = s.facts.predicted_verdict;
  e.predicted_anomaly = s.facts.predicted_anomaly;
  e.run_length_s = s.facts.run_length_s;
  e.planned = s.planned;
  std::vector<const SuiteRun*> runs;
  for (const auto& r : s.runs) {
    runs.push_back(&r.run);
    if (r.run.verdict != "invalid") continue;
    const bool kind = e.predicted_anomaly.empty() || r.anomaly_kinds.contains(e.predicted_anomaly);
    e.invalid_predicted_kind += kind;
    e.invalid_runs.push_back(
        {r.run.repeat, r.run.seed, r.report, r.replay, r.run.first_violation_s, kind});
  }
  const RunGroup g = Summarize(runs);
  e.runs = g.runs;
  e.judged = g.judged;
  e.invalid = g.violations;
  e.wilson = g.rate;
  e.median_first_violation_s = g.median_first_violation_s;
  e.agreement =
      DebateAgreement(e.predicted_verdict, e.runs, e.judged, e.invalid, e.invalid_predicted_kind);
  return e;
}

nlohmann::json OptionalNumber(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json EntryJson(const DebateEntry& e) {
  nlohmann::json invalid_runs = nlohmann::json::array();
  for (const auto& r : e.invalid_runs) {
    invalid_runs.push_back({{"repeat", r.repeat},
                            {"seed", r.seed},
                            {"report", r.report},
                            {"replay", r.replay},
                            {"first_violation_s", OptionalNumber(r.first_violation_s)},
                            {"predicted_kind", r.predicted_kind}});
  }
  return {{"scenario", e.scenario},
          {"row", e.row},
          {"column", e.column},
          {"predicted_verdict", e.predicted_verdict},
          {"predicted_anomaly", e.predicted_anomaly},
          {"run_length_s", e.run_length_s},
          {"planned", e.planned},
          {"runs", e.runs},
          {"judged", e.judged},
          {"invalid", e.invalid},
          {"invalid_predicted_kind", e.invalid_predicted_kind},
          {"wilson_95", {e.wilson.low, e.wilson.high}},
          {"agreement", e.agreement},
          {"median_first_violation_s", OptionalNumber(e.median_first_violation_s)},
          {"invalid_runs", invalid_runs}};
}

Result<DebateInvalidRun> InvalidRunFromJson(const nlohmann::json& j, const std::string& place) {
  JsonFields f(j, place);
  DebateInvalidRun r;
  r.repeat = static_cast<int>(f.Integer("repeat", 0, INT32_MAX));
  r.seed = f.Unsigned("seed");
  r.report = f.Text("report");
  r.replay = f.Text("replay");
  r.first_violation_s = f.Number("first_violation_s");
  if (Status s = f.status(); !s) return Error{s.error()};
  auto kind = j.find("predicted_kind");
  if (kind == j.end() || !kind->is_boolean()) {
    return Error{place + ": \"predicted_kind\" must be true or false"};
  }
  r.predicted_kind = kind->get<bool>();
  return r;
}

Result<Interval> WilsonFromJson(const nlohmann::json& j, const std::string& place) {
  auto it = j.find("wilson_95");
  if (it == j.end() || !it->is_array() || it->size() != 2 || !(*it)[0].is_number() ||
      !(*it)[1].is_number()) {
    return Error{place + ": \"wilson_95\" must be two numbers"};
  }
  return Interval{(*it)[0].get<double>(), (*it)[1].get<double>()};
}

Result<DebateEntry> EntryFromJson(const nlohmann::json& j, const std::string& place) {
  JsonFields f(j, place);
  DebateEntry e;
  e.scenario = f.Text("scenario");
  e.row = f.Text("row");
  e.column = f.Text("column");
  e.predicted_verdict = f.Text("predicted_verdict");
  e.predicted_anomaly = f.Text("predicted_anomaly");
  e.run_length_s = f.Number("run_length_s").value_or(0);
  e.planned = static_cast<int>(f.Integer("planned", 0, INT32_MAX));
  e.runs = static_cast<int>(f.Integer("runs", 0, INT32_MAX));
  e.judged = static_cast<int>(f.Integer("judged", 0, INT32_MAX));
  e.invalid = static_cast<int>(f.Integer("invalid", 0, INT32_MAX));
  e.invalid_predicted_kind = static_cast<int>(f.Integer("invalid_predicted_kind", 0, INT32_MAX));
  e.agreement = f.Text("agreement");
  e.median_first_violation_s = f.Number("median_first_violation_s");
  const nlohmann::json* runs = f.Array("invalid_runs");
  if (Status s = f.status(); !s) return Error{s.error()};
  auto wilson = WilsonFromJson(j, place);
  if (!wilson) return Error{wilson.error()};
  e.wilson = *wilson;
  for (size_t i = 0; runs != nullptr && i < runs->size(); ++i) {
    auto r = InvalidRunFromJson((*runs)[i], place + ".invalid_runs[" + std::to_string(i) + "]");
    if (!r) return Error{r.error()};
    e.invalid_runs.push_back(*r);
  }
  if (e.invalid > e.judged || e.judged > e.runs || e.invalid_predicted_kind > e.invalid) {
    return Error{place + ": the counts must hold invalid <= judged <= runs"};
  }
  return e;
}

nlohmann::json ShapeJson(const DebateShape& shape) {
  nlohmann::json rows = nlohmann::json::array(), columns = nlohmann::json::array(),
                 cannot = nlohmann::json::array();
  for (const auto& r : shape.rows) rows.push_back({{"id", r.id}, {"what", r.what}});
  for (const auto& c : shape.columns) {
    columns.push_back({{"id", c.id}, {"what", c.what}, {"backends", c.backends},
                       {"clients", c.clients}, {"fencing", c.fenced ? "on" : "off"}});
  }
  for (const auto& c : shape.cannot_run) {
    cannot.push_back({{"row", c.row}, {"column", c.column}, {"predicted", c.predicted},
                      {"reason", c.reason}});
  }
  return {{"rows", rows}, {"columns", columns}, {"cannot_run", cannot}};
}

}  // namespace

Result<DebateShape> DebateShapeFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return Error{"the debate matrix's shape is a JSON object"};
  DebateShape shape;
  auto rows = DebateRowsFromJson(j);
  if (!rows) return Error{rows.error()};
  shape.rows = *rows;
  auto columns = DebateColumnsFromJson(j);
  if (!columns) return Error{columns.error()};
  shape.columns = *columns;
  auto cannot = CannotRunFromJson(j, shape);
  if (!cannot) return Error{cannot.error()};
  shape.cannot_run = *cannot;
  return shape;
}

std::string DebateColumnOf(const DebateShape& shape, const DebateScenarioFacts& facts) {
  for (const auto& c : shape.columns) {
    if (c.fenced != facts.fenced) continue;
    if (!c.backends.empty() && !Contains(c.backends, facts.backend)) continue;
    if (!c.clients.empty() && !Contains(c.clients, facts.client)) continue;
    // A column of named clients takes them as its own; elsewhere another
    // client than the default is a variant of the column.
    if (c.clients.empty() && !facts.default_client) return c.id + " " + facts.client;
    return c.id;
  }
  return "?";
}

std::string DebateAgreement(const std::string& predicted_verdict, int runs, int judged,
                            int invalid, int invalid_predicted_kind) {
  if (predicted_verdict != "valid" && predicted_verdict != "invalid") return "no prediction";
  if (predicted_verdict == "invalid") {
    if (invalid_predicted_kind > 0) return "agrees";
    return runs > 0 && judged == runs ? "disagrees" : "undecided";
  }
  if (invalid > 0) return "disagrees";
  return runs > 0 && judged == runs ? "agrees" : "undecided";
}

DebateMatrix BuildDebateMatrix(const DebateShape& shape,
                               const std::vector<DebateScenarioRuns>& scenarios) {
  DebateMatrix m;
  m.shape = shape;
  for (const auto& s : scenarios) {
    m.entries.push_back(EntryOf(shape, s));
    m.repeats = std::max(m.repeats, s.planned);
  }
  m.rows = ShownRows(shape, m.entries);
  m.columns = ShownColumns(shape, m.entries);
  std::stable_sort(m.entries.begin(), m.entries.end(),
                   [&](const DebateEntry& a, const DebateEntry& b) {
                     const size_t ra = IndexIn(m.rows, a.row), rb = IndexIn(m.rows, b.row);
                     if (ra != rb) return ra < rb;
                     return IndexIn(m.columns, a.column) < IndexIn(m.columns, b.column);
                   });
  return m;
}

nlohmann::json DebateMatrixJson(const DebateMatrix& m) {
  nlohmann::json entries = nlohmann::json::array();
  for (const auto& e : m.entries) entries.push_back(EntryJson(e));
  nlohmann::json j = ShapeJson(m.shape);
  j["format"] = 1;
  j["shown_rows"] = m.rows;
  j["shown_columns"] = m.columns;
  j["repeats"] = m.repeats;
  j["time_scale"] = OptionalNumber(m.time_scale);
  j["seed"] = m.seed;
  j["suite_dir"] = m.suite_dir;
  j["command"] = m.command;
  j["entries"] = entries;
  return j;
}

Result<DebateMatrix> DebateMatrixFromJson(const nlohmann::json& j) {
  if (!j.is_object() || j.value("format", 0) != 1) {
    return Error{"not a debate.json of format 1 (an object with \"format\": 1)"};
  }
  DebateMatrix m;
  auto parsed = DebateShapeFromJson(j);
  if (!parsed) return Error{parsed.error()};
  m.shape = *parsed;
  JsonFields f(j, "");
  m.repeats = static_cast<int>(f.Integer("repeats", 0, INT32_MAX));
  m.time_scale = f.Number("time_scale");
  m.seed = f.Unsigned("seed");
  m.suite_dir = f.Text("suite_dir");
  m.command = f.Text("command");
  const nlohmann::json* entries = f.Array("entries");
  if (Status s = f.status(); !s) return Error{s.error()};
  for (size_t i = 0; entries != nullptr && i < entries->size(); ++i) {
    auto e = EntryFromJson((*entries)[i], "entries[" + std::to_string(i) + "]");
    if (!e) return Error{e.error()};
    m.entries.push_back(*e);
  }
  auto rows = DebateStringList(j, "shown_rows", "");
  auto columns = DebateStringList(j, "shown_columns", "");
  if (!rows || !columns) return Error{"\"shown_rows\" and \"shown_columns\" must be lists"};
  m.rows = *rows;
  m.columns = *columns;
  return m;
}

std::string DebateLetter(const std::string& predicted_verdict) {
  return predicted_verdict == "invalid" ? "Y" : predicted_verdict == "valid" ? "N" : "–";
}

std::string DebateObservedText(const DebateEntry& e) {
  if (e.runs == 0) return "not run";
  RunGroup g;
  g.judged = e.judged;
  g.violations = e.invalid;
  g.rate = e.wilson;
  std::string text = RateText(g);
  if (e.judged < e.runs) text += "; " + std::to_string(e.runs - e.judged) + " not judged";
  return text;
}

}  // namespace locksmith
