#include "reports/suite_junit.h"

#include <sstream>

#include "reports/escape.h"
#include "reports/junit_report.h"

namespace locksmith {

std::string RenderSuiteJunit(const SuiteRecord& suite) {
  int failures = 0, errors = 0;
  double total_s = 0;
  std::ostringstream cases;
  for (const auto& r : suite.runs) {
    total_s += r.duration_s;
    cases << "    <testcase classname=\"" << XmlEscape(suite.name + "." + r.cell) << "\" name=\""
          << XmlEscape(r.cell + " #" + std::to_string(r.repeat) + " seed " +
                       std::to_string(r.seed))
          << "\" time=\"" << JunitSeconds(r.duration_s) << "\">\n";
    if (r.verdict == "invalid") {
      ++failures;
      cases << "      <failure message=\"" << XmlEscape(SuiteRunAnomalyText(r))
            << "\" type=\"invalid\">"
            << XmlEscape(SuiteRunAnomalyText(r) + (r.dir.empty() ? "" : "\nreport: " + r.dir +
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
      << failures << "\" errors=\"" << errors << "\" time=\"" << JunitSeconds(total_s) << "\">\n"
      << "  <testsuite name=\"" << XmlEscape(suite.name) << "\" tests=\"" << n
      << "\" failures=\"" << failures << "\" errors=\"" << errors << "\" skipped=\"0\" time=\""
      << JunitSeconds(total_s) << "\">\n"
      << "    <properties>\n"
      << "      <property name=\"seed\" value=\"" << suite.seed << "\"/>\n";
  if (!suite.interrupted.empty()) {
    out << "      <property name=\"interrupted\" value=\"" << XmlEscape(suite.interrupted)
        << "\"/>\n";
  }
  out << "    </properties>\n" << cases.str() << "  </testsuite>\n</testsuites>\n";
  return out.str();
}

}  // namespace locksmith
