#include "reports/suite_report.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <tuple>

#include "base/atomic_file.h"
#include "base/input_file.h"
#include "base/option_set.h"
#include "reports/escape.h"
#include "reports/run_results.h"

namespace locksmith {
namespace {

std::optional<double> NumberAt(const nlohmann::json& j, std::initializer_list<const char*> path) {
  const nlohmann::json* at = &j;
  for (const char* key : path) {
    if (!at->is_object()) return std::nullopt;
    auto it = at->find(key);
    if (it == at->end()) return std::nullopt;
    at = &*it;
  }
  if (!at->is_number()) return std::nullopt;
  return at->get<double>();
}

// The latest op time (ns) an anomaly names: the moment it became certain.
// Op references are objects with "index", "time" and "f", at any depth.
std::optional<int64_t> LatestOpTime(const nlohmann::json& j) {
  std::optional<int64_t> latest;
  if (j.is_object()) {
    auto t = j.find("time");
    if (t != j.end() && t->is_number_integer() && j.contains("index") && j.contains("f")) {
      latest = t->get<int64_t>();
    }
  }
  if (j.is_object() || j.is_array()) {
    for (const auto& v : j) {
      auto inner = LatestOpTime(v);
      if (inner && (!latest || *inner > *latest)) latest = inner;
    }
  }
  return latest;
}

std::string Text(const nlohmann::json& config, const char* key) {
  if (!config.is_object()) return "";
  auto it = config.find(key);
  return it != config.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string NemesisText(const nlohmann::json& config) {
  if (!config.is_object()) return "";
  auto it = config.find("nemesis");
  if (it == config.end()) return "no faults";
  std::string out;
  if (it->is_string()) {
    out = it->get<std::string>();
  } else if (it->is_array()) {
    for (const auto& n : *it) {
      if (n.is_string()) out += (out.empty() ? "" : "+") + n.get<std::string>();
    }
  }
  return out.empty() || out == "none" ? "no faults" : out;
}

std::optional<double> Median(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::optional<double> Mean(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  double sum = 0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

// A JUnit time: seconds with three decimals, never in exponent form (the
// schema's SUREFIRE_TIME pattern has no exponent).
std::string Seconds(double s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", std::isfinite(s) && s > 0 ? s : 0.0);
  return buf;
}

nlohmann::json Optional(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

std::string Fixed(const std::optional<double>& v, int digits, const char* unit = "") {
  if (!v) return "–";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f%s", digits, *v, unit);
  return buf;
}

std::string Percent(const std::optional<double>& v) {
  return v ? Fixed(*v * 100, 1, "%") : "–";
}

std::string AnomalyText(const SuiteRun& run) {
  std::string out;
  for (const auto& [type, n] : run.anomalies) {
    out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + type;
  }
  return out;
}

nlohmann::json GroupJson(const RunGroup& g) {
  return {{"runs", g.runs},
          {"judged", g.judged},
          {"violations", g.violations},
          {"violation_rate", g.judged ? nlohmann::json(double(g.violations) / g.judged) : nullptr},
          {"wilson_95", {g.rate.low, g.rate.high}},
          {"median_first_violation_s", Optional(g.median_first_violation_s)},
          {"mean_availability_inside", Optional(g.mean_availability_inside)},
          {"mean_availability_outside", Optional(g.mean_availability_outside)},
          {"mean_answered_inside", Optional(g.mean_answered_inside)},
          {"mean_answered_outside", Optional(g.mean_answered_outside)},
          {"median_acquire_p50_ms", Optional(g.median_acquire_p50_ms)},
          {"median_acquire_p99_ms", Optional(g.median_acquire_p99_ms)},
          {"mean_grants_per_s", Optional(g.mean_grants_per_s)},
          {"mean_in_doubt", Optional(g.mean_in_doubt)},
          {"mean_unanswered_inside", Optional(g.mean_unanswered_inside)},
          {"mean_unanswered_outside", Optional(g.mean_unanswered_outside)}};
}

// The table class of a group: any violation, all judged valid, or undecided.
const char* GroupClass(const RunGroup& g) {
  return g.violations ? "invalid" : g.judged == g.runs ? "valid" : "unknown";
}

// Runs grouped by `key`, groups in first-seen order.
template <typename Key>
std::vector<std::pair<std::string, std::vector<const SuiteRun*>>> GroupBy(
    const std::vector<SuiteRun>& runs, Key key) {
  std::vector<std::pair<std::string, std::vector<const SuiteRun*>>> groups;
  for (const auto& run : runs) {
    const std::string k = key(run);
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& g) { return g.first == k; });
    if (it == groups.end()) {
      groups.push_back({k, {}});
      it = groups.end() - 1;
    }
    it->second.push_back(&run);
  }
  return groups;
}

}  // namespace

const char* IndexPageStyle() {
  return R"(<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}
table{border-collapse:collapse;margin:8px 0 24px}
th,td{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f3f3f3}
.valid{background:#e6f4e6}.invalid{background:#fbe3e3}.unknown{background:#fff4d6}
.failed,.no-verdict{background:#eee;color:#900}
small{color:#666}
dl.legend{margin:-16px 0 24px;color:#444}dl.legend dt{font-weight:600}dl.legend dd{margin:0 0 4px 16px}
</style>)";
}

namespace {

// "kill 3/3, client-pause 1/3": per family of the run's fault ledger, its
// faults observed of those planned.
std::string LedgerText(const nlohmann::json& results) {
  if (!results.is_object() || !results.contains("faults") || !results["faults"].is_object()) {
    return "";
  }
  std::string text;
  for (const auto& f : results["faults"].value("families", nlohmann::json::array())) {
    if (!f.is_object()) continue;
    text += (text.empty() ? "" : ", ") + f.value("family", std::string("?")) + " " +
            std::to_string(f.value("observed", 0)) + "/" + std::to_string(f.value("planned", 0));
  }
  return text;
}

// What the run asked for and did not get: results.json's "unfulfilled", or
// the ledger's own line (a verdict in memory, without the run's extras).
std::string UnfulfilledText(const nlohmann::json& results) {
  if (!results.is_object()) return "";
  const nlohmann::json faults = results.value("faults", nlohmann::json());
  for (const nlohmann::json* j : {&results, &faults}) {
    if (!j->is_object()) continue;
    auto it = j->find("unfulfilled");
    if (it != j->end() && it->is_string()) return it->get<std::string>();
  }
  return "";
}

}  // namespace

SuiteRun SuiteRunFrom(const nlohmann::json& results, const nlohmann::json& config) {
  SuiteRun run;
  run.verdict = "failed";
  if (results.is_object() && results.contains("valid")) {
    const auto& v = results["valid"];
    run.verdict = v == true ? "valid" : v == false ? "invalid" : "unknown";
  }
  std::optional<int64_t> first;
  if (results.is_object() && results.contains("anomalies") && results["anomalies"].is_array()) {
    for (const auto& a : results["anomalies"]) {
      const std::string type = a.is_object() && a.contains("type") && a["type"].is_string()
                                   ? a["type"].get<std::string>()
                                   : "anomaly";
      ++run.anomalies[type];
      auto t = LatestOpTime(a);
      if (t && (!first || *t < *first)) first = t;
    }
  }
  if (first && run.verdict == "invalid") run.first_violation_s = static_cast<double>(*first) / 1e9;
  const nlohmann::json stats =
      results.is_object() ? results.value("stats", nlohmann::json()) : nlohmann::json();
  double acquires = 0, in_doubt = 0;
  for (auto [share, answered, unanswered, name] :
       {std::tuple{&SuiteRun::availability_inside, &SuiteRun::answered_inside,
                   &SuiteRun::unanswered_inside, "inside_faults"},
        std::tuple{&SuiteRun::availability_outside, &SuiteRun::answered_outside,
                   &SuiteRun::unanswered_outside, "outside_faults"}}) {
    auto attempts = NumberAt(stats, {"availability", "stats", name, "attempts"});
    if (attempts && *attempts > 0) {
      run.*share = NumberAt(stats, {"availability", "stats", name, "availability"});
      run.*answered = NumberAt(stats, {"availability", "stats", name, "answered"});
      run.*unanswered = NumberAt(stats, {"availability", "stats", name, "unanswered_share"});
      acquires += *attempts;
      in_doubt += NumberAt(stats, {"availability", "stats", name, "in_doubt"}).value_or(0);
    }
  }
  if (acquires > 0) run.in_doubt = in_doubt / acquires;
  run.acquire_p50_ms = NumberAt(stats, {"perf", "stats", "latency", "acquire", "ok", "p50_ms"});
  run.acquire_p99_ms = NumberAt(stats, {"perf", "stats", "latency", "acquire", "ok", "p99_ms"});
  run.ops_per_s = NumberAt(stats, {"perf", "stats", "ops_per_s"});
  run.duration_s = NumberAt(stats, {"perf", "stats", "duration_s"}).value_or(0);
  if (run.duration_s > 0) {
    run.grants_per_s =
        NumberAt(stats, {"perf", "stats", "by_f", "acquire", "ok"}).value_or(0) / run.duration_s;
  }
  const std::string backend = Text(config, "backend");
  const std::string client = Text(config, "client");
  run.lock = client.empty() ? backend : backend + "/" + client;
  run.schedule = Text(config, "workload") + ", " + NemesisText(config);
  if (config.is_object() && config.contains("steps") && !config["steps"].is_null()) {
    run.schedule += ", scripted steps";
  }
  run.faults = LedgerText(results);
  if (run.verdict == "unknown") run.error = UnfulfilledText(results);
  return run;
}

int WorstExitCode(const std::vector<int>& codes) {
  auto severity = [](int code) { return code == 0 ? 0 : code == 2 ? 1 : code == 1 ? 2 : 3; };
  int worst = 0;
  for (int c : codes) {
    if (severity(c) > severity(worst)) worst = c;
  }
  return worst;
}

Interval WilsonInterval(int k, int n) {
  if (n <= 0) return {};
  const double z = 1.959963984540054;
  const double nn = n, p = static_cast<double>(k) / nn;
  const double denom = 1 + z * z / nn;
  const double center = (p + z * z / (2 * nn)) / denom;
  const double half = z * std::sqrt(p * (1 - p) / nn + z * z / (4 * nn * nn)) / denom;
  return {std::max(0.0, center - half), std::min(1.0, center + half)};
}

std::string RateText(const RunGroup& g) {
  if (g.judged == 0) return "no run judged";
  return std::to_string(g.violations) + " of " + std::to_string(g.judged) + " invalid [" +
         Fixed(g.rate.low * 100, 0) + "–" + Fixed(g.rate.high * 100, 0) + "%]";
}

RunGroup Summarize(const std::vector<const SuiteRun*>& runs) {
  RunGroup g;
  std::vector<double> firsts, inside, outside, answered_inside, answered_outside, p50, p99;
  std::vector<double> grants, in_doubt, unanswered_inside, unanswered_outside;
  for (const SuiteRun* r : runs) {
    for (auto [value, into] : {std::pair{&SuiteRun::acquire_p99_ms, &p99},
                               std::pair{&SuiteRun::grants_per_s, &grants},
                               std::pair{&SuiteRun::in_doubt, &in_doubt},
                               std::pair{&SuiteRun::unanswered_inside, &unanswered_inside},
                               std::pair{&SuiteRun::unanswered_outside, &unanswered_outside}}) {
      if (r->*value) into->push_back(*(r->*value));
    }
    ++g.runs;
    if (r->verdict == "valid" || r->verdict == "invalid") ++g.judged;
    if (r->verdict == "invalid") ++g.violations;
    if (r->first_violation_s) firsts.push_back(*r->first_violation_s);
    if (r->availability_inside) inside.push_back(*r->availability_inside);
    if (r->availability_outside) outside.push_back(*r->availability_outside);
    if (r->answered_inside) answered_inside.push_back(*r->answered_inside);
    if (r->answered_outside) answered_outside.push_back(*r->answered_outside);
    if (r->acquire_p50_ms) p50.push_back(*r->acquire_p50_ms);
  }
  g.rate = WilsonInterval(g.violations, g.judged);
  g.median_first_violation_s = Median(firsts);
  g.mean_availability_inside = Mean(inside);
  g.mean_availability_outside = Mean(outside);
  g.mean_answered_inside = Mean(answered_inside);
  g.mean_answered_outside = Mean(answered_outside);
  g.median_acquire_p50_ms = Median(p50);
  g.median_acquire_p99_ms = Median(p99);
  g.mean_grants_per_s = Mean(grants);
  g.mean_in_doubt = Mean(in_doubt);
  g.mean_unanswered_inside = Mean(unanswered_inside);
  g.mean_unanswered_outside = Mean(unanswered_outside);
  return g;
}

nlohmann::json SuiteSummaryJson(const SuiteRecord& suite) {
  nlohmann::json runs = nlohmann::json::array();
  std::vector<int> codes;
  for (const auto& r : suite.runs) {
    codes.push_back(r.exit_code);
    runs.push_back({{"cell", r.cell},
                    {"repeat", r.repeat},
                    {"seed", r.seed},
                    {"dir", r.dir},
                    {"exit_code", r.exit_code},
                    {"verdict", r.verdict},
                    {"error", r.error},
                    {"anomalies", r.anomalies},
                    {"first_violation_s", Optional(r.first_violation_s)},
                    {"availability_inside", Optional(r.availability_inside)},
                    {"availability_outside", Optional(r.availability_outside)},
                    {"answered_inside", Optional(r.answered_inside)},
                    {"answered_outside", Optional(r.answered_outside)},
                    {"acquire_p50_ms", Optional(r.acquire_p50_ms)},
                    {"acquire_p99_ms", Optional(r.acquire_p99_ms)},
                    {"unanswered_inside", Optional(r.unanswered_inside)},
                    {"unanswered_outside", Optional(r.unanswered_outside)},
                    {"in_doubt", Optional(r.in_doubt)},
                    {"grants_per_s", Optional(r.grants_per_s)},
                    {"ops_per_s", Optional(r.ops_per_s)},
                    {"duration_s", r.duration_s},
                    {"lock", r.lock},
                    {"schedule", r.schedule},
                    {"faults", r.faults}});
  }
  nlohmann::json cells = nlohmann::json::object();
  for (const auto& [cell, of] : GroupBy(suite.runs, [](const SuiteRun& r) { return r.cell; })) {
    cells[cell] = GroupJson(Summarize(of));
  }
  nlohmann::json comparison = nlohmann::json::array();
  for (const auto& [key, of] :
       GroupBy(suite.runs, [](const SuiteRun& r) { return r.schedule + "\n" + r.lock; })) {
    nlohmann::json g = GroupJson(Summarize(of));
    g["schedule"] = of.front()->schedule;
    g["lock"] = of.front()->lock;
    comparison.push_back(std::move(g));
  }
  nlohmann::json j = {{"suite", suite.name},
                      {"description", suite.description},
                      {"seed", suite.seed},
                      {"planned_runs", suite.planned_runs},
                      {"completed_runs", suite.runs.size()},
                      {"exit_code", WorstExitCode(codes)},
                      {"cells", cells},
                      {"comparison", comparison},
                      {"runs", runs}};
  if (!suite.interrupted.empty()) j["interrupted"] = suite.interrupted;
  return j;
}

std::string RenderSuiteJunit(const SuiteRecord& suite) {
  int failures = 0, errors = 0;
  double total_s = 0;
  std::ostringstream cases;
  for (const auto& r : suite.runs) {
    total_s += r.duration_s;
    cases << "    <testcase classname=\"" << XmlEscape(suite.name + "." + r.cell) << "\" name=\""
          << XmlEscape(r.cell + " #" + std::to_string(r.repeat) + " seed " +
                       std::to_string(r.seed))
          << "\" time=\"" << Seconds(r.duration_s) << "\">\n";
    if (r.verdict == "invalid") {
      ++failures;
      cases << "      <failure message=\"" << XmlEscape(AnomalyText(r)) << "\" type=\"invalid\">"
            << XmlEscape(AnomalyText(r) + (r.dir.empty() ? "" : "\nreport: " + r.dir +
                                                                   "/report.html"))
            << "</failure>\n";
    } else if (r.verdict != "valid") {
      ++errors;
      const std::string why = r.error.empty() ? r.verdict : r.verdict + ": " + r.error;
      cases << "      <error message=\"" << XmlEscape(why) << "\" type=\"" << XmlEscape(r.verdict)
            << "\">"
            << XmlEscape(why) << "</error>\n";
    }
    if (!r.dir.empty()) {
      cases << "      <system-out>" << XmlEscape("run directory: " + r.dir) << "</system-out>\n";
    }
    cases << "    </testcase>\n";
  }
  std::ostringstream out;
  const size_t n = suite.runs.size();
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites name=\"" << XmlEscape(suite.name) << "\" tests=\"" << n << "\" failures=\""
      << failures << "\" errors=\"" << errors << "\" time=\"" << Seconds(total_s) << "\">\n"
      << "  <testsuite name=\"" << XmlEscape(suite.name) << "\" tests=\"" << n
      << "\" failures=\"" << failures << "\" errors=\"" << errors << "\" skipped=\"0\" time=\""
      << Seconds(total_s) << "\">\n"
      << "    <properties>\n"
      << "      <property name=\"seed\" value=\"" << suite.seed << "\"/>\n";
  if (!suite.interrupted.empty()) {
    out << "      <property name=\"interrupted\" value=\"" << XmlEscape(suite.interrupted)
        << "\"/>\n";
  }
  out << "    </properties>\n" << cases.str() << "  </testsuite>\n</testsuites>\n";
  return out.str();
}

namespace {

// What each column of the comparison means, under the table.
const char* ComparisonLegend() {
  return R"(<dl class="legend">
<dt>grants/s</dt><dd>locks granted per second of the run, over all clients and keys.</dd>
<dt>time to acquire</dt><dd>p50 / p99 from asking for the lock to holding it, the wait for a lock another client holds included: every lock gets the same acquire, one that waits up to the run's acquire wait (try-lock clients retry with a jittered pause, queueing clients wait their turn).</dd>
<dt>in doubt</dt><dd>the share of acquires with no definite answer (a timeout or a lost connection): the lock may or may not have been taken.</dd>
<dt>failed, no answer</dt><dd>the share of acquires that gave up because the service did not answer on the lock (nothing could be sent, no master), of those begun inside fault windows / outside them; an acquire that gave up because the lock stayed held for its whole wait is not counted.</dd>
<dt>violations</dt><dd>runs judged invalid (two holders at once, or a history no legal order explains) of the runs judged, with the Wilson 95% interval.</dd>
</dl>
)";
}

// The comparison a team choosing a lock service reads: each lock setting
// under each workload and faults, side by side, one row each.
void ComparisonTable(const SuiteRecord& suite, std::ostringstream& h) {
  h << "<h2>comparison</h2>\n<table class=\"comparison\"><tr><th>workload, faults</th>"
       "<th>lock</th><th>grants/s</th><th>time to acquire p50 / p99</th><th>in doubt</th>"
       "<th>failed, no answer: in / out of faults</th><th>violations</th></tr>\n";
  for (const auto& [key, of] :
       GroupBy(suite.runs, [](const SuiteRun& r) { return r.schedule + "\n" + r.lock; })) {
    const RunGroup g = Summarize(of);
    h << "<tr><td>" << HtmlEscape(of.front()->schedule) << "</td><td>"
      << HtmlEscape(of.front()->lock) << "</td><td>" << Fixed(g.mean_grants_per_s, 1)
      << "</td><td>" << Fixed(g.median_acquire_p50_ms, 1) << " / "
      << Fixed(g.median_acquire_p99_ms, 1, " ms") << "</td><td>" << Percent(g.mean_in_doubt)
      << "</td><td>" << Percent(g.mean_unanswered_inside) << " / "
      << Percent(g.mean_unanswered_outside) << "</td><td class=\"" << GroupClass(g) << "\">"
      << HtmlEscape(RateText(g)) << "</td></tr>\n";
  }
  h << "</table>\n" << ComparisonLegend();
}

void CellsTable(const SuiteRecord& suite, std::ostringstream& h) {
  h << "<h2>cells</h2>\n<table><tr><th>cell</th><th>lock</th><th>workload, faults</th>"
       "<th>violations</th><th>median time to first violation</th><th>availability in / out "
       "of faults</th><th>acquire p50</th></tr>\n";
  for (const auto& [cell, of] : GroupBy(suite.runs, [](const SuiteRun& r) { return r.cell; })) {
    const RunGroup g = Summarize(of);
    h << "<tr class=\"" << GroupClass(g) << "\"><td>" << HtmlEscape(cell) << "</td><td>"
      << HtmlEscape(of.front()->lock) << "</td><td>" << HtmlEscape(of.front()->schedule)
      << "</td><td>" << HtmlEscape(RateText(g)) << "</td><td>"
      << Fixed(g.median_first_violation_s, 2, " s") << "</td><td>"
      << Percent(g.mean_availability_inside) << " / " << Percent(g.mean_availability_outside)
      << "</td><td>" << Fixed(g.median_acquire_p50_ms, 2, " ms") << "</td></tr>\n";
  }
  h << "</table>\n";
}

void RunsTable(const SuiteRecord& suite, std::ostringstream& h) {
  h << "<h2>runs</h2>\n<table><tr><th>cell</th><th>#</th><th>seed</th><th>verdict</th>"
       "<th>anomalies</th><th>faults observed / planned</th><th>first violation</th>"
       "<th>availability in / out</th><th>acquire p50 / p99</th><th>ops/s</th><th>report</th>"
       "</tr>\n";
  for (const auto& r : suite.runs) {
    h << "<tr class=\"" << HtmlEscape(r.verdict) << "\"><td>" << HtmlEscape(r.cell) << "</td><td>"
      << r.repeat << "</td><td>" << r.seed << "</td><td>" << HtmlEscape(r.verdict);
    if (!r.error.empty()) h << "<br><small>" << HtmlEscape(r.error) << "</small>";
    h << "</td><td>" << HtmlEscape(AnomalyText(r)) << "</td><td>"
      << (r.faults.empty() ? "-" : HtmlEscape(r.faults)) << "</td><td>"
      << Fixed(r.first_violation_s, 2, " s") << "</td><td>" << Percent(r.availability_inside)
      << " / " << Percent(r.availability_outside) << "</td><td>"
      << Fixed(r.acquire_p50_ms, 2) << " / " << Fixed(r.acquire_p99_ms, 2, " ms") << "</td><td>"
      << Fixed(r.ops_per_s, 0) << "</td><td>";
    if (!r.dir.empty()) {
      h << "<a href=\"" << HrefOfPath(r.dir + "/report.html") << "\">report</a>";
    }
    h << "</td></tr>\n";
  }
  h << "</table>\n";
}

}  // namespace

std::string RenderSuiteIndex(const SuiteRecord& suite) {
  std::ostringstream h;
  std::vector<int> codes;
  for (const auto& r : suite.runs) codes.push_back(r.exit_code);
  h << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>suite "
    << HtmlEscape(suite.name) << "</title>" << IndexPageStyle() << "</head><body>\n"
    << "<h1>suite " << HtmlEscape(suite.name) << "</h1>\n";
  if (!suite.description.empty()) h << "<p>" << HtmlEscape(suite.description) << "</p>\n";
  h << "<p>" << suite.runs.size() << " of " << suite.planned_runs << " runs, seed "
    << suite.seed << ", exit code " << WorstExitCode(codes) << "</p>\n";
  if (!suite.interrupted.empty()) {
    h << "<p class=\"unknown\">interrupted: " << HtmlEscape(suite.interrupted) << "</p>\n";
  }
  ComparisonTable(suite, h);
  CellsTable(suite, h);
  RunsTable(suite, h);
  h << "</body></html>\n";
  return h.str();
}

Status WriteSuiteReports(const SuiteRecord& suite, const std::string& dir) {
  // DumpJson: a name from a file name may be any bytes, not UTF-8.
  const std::string summary = DumpJson(SuiteSummaryJson(suite), 2) + "\n";
  if (Status s = WriteFileAtomically(dir + "/summary.json", summary); !s) return s;
  if (Status s = WriteFileAtomically(dir + "/junit.xml", RenderSuiteJunit(suite)); !s) return s;
  return WriteFileAtomically(dir + "/index.html", RenderSuiteIndex(suite));
}

}  // namespace locksmith
