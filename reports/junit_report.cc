#include "reports/junit_report.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>

#include "base/atomic_file.h"
#include "base/utf8.h"
#include "history/history.h"
#include "history/history_log.h"
#include "reports/escape.h"
#include "reports/op_refs.h"
#include "reports/run_results.h"
#include "reports/run_summary.h"

namespace locksmith {
namespace {

constexpr size_t kMaxAnomaliesListed = 200;

std::string Attr(const std::string& name, const std::string& value) {
  return " " + name + "=\"" + XmlEscape(value) + "\"";
}

std::string AnomalyType(const nlohmann::json& a) {
  if (a.is_object()) {
    if (auto it = a.find("type"); it != a.end() && it->is_string()) return it->get<std::string>();
  }
  return "anomaly";
}

// One line per anomaly: "#1 double-holder key=lock-0 ops=#12,#13 class=...".
std::string AnomalyLine(const nlohmann::json& a, size_t number) {
  std::string line = "#" + std::to_string(number) + " " + AnomalyType(a);
  if (!a.is_object()) return line + " " + DumpJson(a);
  if (auto it = a.find("key"); it != a.end()) {
    line += " key=" + (it->is_string() ? it->get<std::string>() : DumpJson(*it));
  }
  std::set<int64_t> ops;
  CollectOpIndices(a, &ops);
  if (!ops.empty()) {
    line += " ops=";
    size_t n = 0;
    for (int64_t i : ops) {
      if (n++ == 20) {
        line += ",…";
        break;
      }
      line += (n > 1 ? ",#" : "#") + std::to_string(i);
    }
  }
  for (const auto& [name, v] : a.items()) {
    if (name == "type" || name == "key" || name == "checker" || !v.is_primitive() || v.is_null()) {
      continue;
    }
    line += " " + name + "=" + (v.is_string() ? v.get<std::string>() : DumpJson(v));
  }
  return line;
}

std::string Summary(const std::vector<nlohmann::json>& anomalies) {
  std::map<std::string, int64_t> by_type;
  for (const auto& a : anomalies) ++by_type[AnomalyType(a)];
  std::string s = std::to_string(anomalies.size()) + (anomalies.size() == 1 ? " anomaly" : " anomalies");
  std::string sep = ": ";
  for (const auto& [t, n] : by_type) {
    s += sep + t + " x" + std::to_string(n);
    sep = ", ";
  }
  return s;
}

// Time of the last op, from the file's tail only (histories can be large).
double LastOpSeconds(const std::string& history_path) {
  {
    // A history log has no lines to read backwards: the last op of a pass.
    std::ifstream head(history_path, std::ios::binary);
    char magic[kHistoryLogMagic.size()] = {};
    if (head.read(magic, sizeof magic) && HasHistoryLogMagic({magic, sizeof magic})) {
      auto stream = OpenHistoryStream(history_path);
      Op op, last;
      while (stream) {
        auto more = (*stream)->Next(&op);
        if (!more || !*more) break;
        last = std::move(op);
      }
      return static_cast<double>(last.time) / 1e9;
    }
  }
  std::ifstream in(history_path, std::ios::binary | std::ios::ate);
  if (!in) return 0;
  const std::streamoff size = in.tellg();
  const std::streamoff tail = std::min<std::streamoff>(size, 65536);
  std::string buf(static_cast<size_t>(tail), '\0');
  in.seekg(size - tail);
  in.read(buf.data(), tail);
  size_t end = buf.size();
  while (end > 0) {
    size_t start = buf.rfind('\n', end - 1);
    start = start == std::string::npos ? 0 : start + 1;
    if (auto op = ParseOpLine(std::string_view(buf).substr(start, end - start)); op) {
      return static_cast<double>(op->time) / 1e9;
    }
    if (start == 0) break;
    end = start - 1;
  }
  return 0;
}

// What results.json says about an interruption (RunTest's "interrupted" and
// "interruption.message"); "" when the run was not interrupted.
std::string InterruptionText(const nlohmann::json& results) {
  auto flag = results.find("interrupted");
  if (flag == results.end() || *flag != true) return "";
  if (auto it = results.find("interruption"); it != results.end() && it->is_object()) {
    auto m = it->find("message");
    if (m != it->end() && m->is_string() && !m->get<std::string>().empty()) {
      return SanitizeUtf8(m->get<std::string>());
    }
  }
  return "the run was interrupted; the verdict covers only the ops before it";
}

const nlohmann::json kNoLedger;

// results.json's "unfulfilled": what the run asked for and did not get.
std::string UnfulfilledOf(const nlohmann::json& results) {
  auto it = results.find("unfulfilled");
  return it != results.end() && it->is_string() ? it->get<std::string>() : "";
}

// The "faults" case: what every fault family planned and how many of its
// faults were observed; an error when the run did not do what it was asked.
std::string FaultsCase(const std::string& classname, const nlohmann::json& faults,
                       const std::string& unfulfilled, const std::string& system_out) {
  std::string body;
  for (const auto& f : faults.value("families", nlohmann::json::array())) {
    if (!f.is_object()) continue;
    body += f.value("family", std::string("?")) + ": " + std::to_string(f.value("planned", 0)) +
            " planned, " + std::to_string(f.value("observed", 0)) + " observed\n";
  }
  std::string x = "    <testcase" + Attr("classname", classname) + Attr("name", "faults") +
                  Attr("time", "0");
  if (unfulfilled.empty() && system_out.empty()) return x + "/>\n";
  x += ">\n";
  if (!unfulfilled.empty()) {
    x += "      <error" + Attr("message", "unknown: " + unfulfilled) + Attr("type", "unknown") +
         ">" + XmlEscape(body) + "</error>\n";
  }
  return x + system_out + "    </testcase>\n";
}

}  // namespace

std::string JunitSeconds(double s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", std::isfinite(s) && s > 0 ? s : 0.0);
  return buf;
}

Result<std::string> RenderJunitXml(const nlohmann::json& results, const nlohmann::json& config,
                                   double duration_s) {
  auto parsed = RunResults::Parse(results);
  if (!parsed) return Error{parsed.error()};
  const RunResults& r = *parsed;
  const RunSummary summary = RunSummary::FromConfig(config);

  int failures = 0, errors = 0;
  for (const auto& c : r.checkers()) {
    failures += c.valid == Validity::kFalse;
    errors += c.valid == Validity::kUnknown;
  }
  // The fault ledger is a case of its own: a run whose faults did not all
  // happen is unknown though every checker passed.
  const nlohmann::json& faults = r.json().contains("faults") ? r.json()["faults"] : kNoLedger;
  const std::string unfulfilled = UnfulfilledOf(r.json());
  errors += !unfulfilled.empty();
  std::string classname = "locksmith";
  for (const std::string* part : {&summary.backend, &summary.workload}) {
    if (!part->empty()) classname += "." + *part;
  }
  const std::string tests = std::to_string(r.checkers().size() + (faults.is_object() ? 1 : 0));
  const std::string time = JunitSeconds(duration_s);

  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites";
  x += Attr("name", "locksmith") + Attr("tests", tests) + Attr("failures", std::to_string(failures)) +
       Attr("errors", std::to_string(errors)) + Attr("time", time) + ">\n";
  x += "  <testsuite" + Attr("name", summary.DisplayName()) + Attr("tests", tests) +
       Attr("failures", std::to_string(failures)) + Attr("errors", std::to_string(errors)) +
       Attr("skipped", "0") + Attr("time", time) + ">\n    <properties>\n";
  auto property = [&](const std::string& name, const std::string& value) {
    if (!value.empty()) x += "      <property" + Attr("name", name) + Attr("value", value) + "/>\n";
  };
  property("verdict", VerdictText(r.valid()));
  property("backend", summary.backend);
  property("workload", summary.workload);
  property("nemesis", summary.nemesis);
  property("seed", summary.seed);
  property("reason", r.reason());
  // An interrupted run's verdict covers less than the configured workload:
  // say so as a property (machine-readable) and in every test case's
  // system-out, which is what CI pages (Jenkins, GitLab) show next to a case.
  const std::string interrupted = InterruptionText(r.json());
  property("interrupted", interrupted);
  x += "    </properties>\n";
  const std::string system_out =
      interrupted.empty() ? ""
                          : "      <system-out>" + XmlEscape("interrupted: " + interrupted) +
                                "</system-out>\n";

  for (const auto& c : r.checkers()) {
    x += "    <testcase" + Attr("classname", classname) + Attr("name", c.name) + Attr("time", "0");
    if (c.valid == Validity::kTrue) {
      x += system_out.empty() ? "/>\n" : ">\n" + system_out + "    </testcase>\n";
      continue;
    }
    x += ">\n";
    std::string body;
    size_t number = 0;
    for (const auto& a : c.anomalies) {
      if (number == kMaxAnomaliesListed) {
        body += "… " + std::to_string(c.anomalies.size() - number) + " more in results.json\n";
        break;
      }
      body += AnomalyLine(a, ++number) + "\n";
    }
    if (c.valid == Validity::kFalse) {
      std::string message = c.anomalies.empty() ? "invalid (no anomalies recorded)" : Summary(c.anomalies);
      if (!c.reason.empty()) message += " (" + c.reason + ")";
      std::string type = c.anomalies.empty() ? "invalid" : AnomalyType(c.anomalies.front());
      x += "      <failure" + Attr("message", message) + Attr("type", type) + ">" + XmlEscape(body) +
           "</failure>\n";
    } else {
      x += "      <error" + Attr("message", "unknown: " + (c.reason.empty() ? "the checker could not decide" : c.reason)) +
           Attr("type", "unknown") + ">" + XmlEscape(body) + "</error>\n";
    }
    x += system_out + "    </testcase>\n";
  }
  if (faults.is_object()) x += FaultsCase(classname, faults, unfulfilled, system_out);
  x += "  </testsuite>\n</testsuites>\n";
  return x;
}

Status WriteJunitXml(const nlohmann::json& results, const nlohmann::json& config,
                     const std::string& output_path, double duration_s) {
  auto xml = RenderJunitXml(results, config, duration_s);
  if (!xml) return Error{xml.error()};
  return WriteFileAtomically(output_path, *xml);
}

Status WriteJunitXml(const std::string& run_dir) {
  auto docs = ReadRunDocuments(run_dir);
  if (!docs) return Error{docs.error()};
  return WriteJunitXml(docs->results, docs->config, run_dir + "/junit.xml",
                       LastOpSeconds(RunHistoryFile(run_dir)));
}

}  // namespace locksmith
