#include "reports/suite_report.h"

#include "base/atomic_file.h"
#include "reports/escape.h"

namespace locksmith {

Status WriteSuiteReports(const SuiteRecord& suite, const std::string& dir) {
  // DumpJson: a name from a file name may be any bytes, not UTF-8.
  const std::string summary = DumpJson(SuiteSummaryJson(suite), 2) + "\n";
  if (Status s = WriteFileAtomically(dir + "/summary.json", summary); !s) return s;
  if (Status s = WriteFileAtomically(dir + "/junit.xml", RenderSuiteJunit(suite)); !s) return s;
  return WriteFileAtomically(dir + "/index.html", RenderSuiteIndex(suite));
}

}  // namespace locksmith
