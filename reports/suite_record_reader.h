// Reading a suite's summary.json back into a SuiteRecord, for `locksmith
// report SUITE_DIR`, the store index and the suites that come after: the
// file may have been written by anyone, so every field's type and range is
// checked. Stateless; safe from any thread.
#ifndef LOCKSMITH_REPORTS_SUITE_RECORD_READER_H_
#define LOCKSMITH_REPORTS_SUITE_RECORD_READER_H_

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "reports/suite_report.h"

namespace locksmith {

// The record a summary.json holds (SuiteSummaryJson's inverse), so the
// tables can be written again (`locksmith report SUITE_DIR`) and the store
// index can list the suite. A summary that is not an object with "suite" and
// "runs", a field of the wrong type or range, or a run directory that is not
// a relative path inside the suite's directory is an error naming what is
// wrong.
Result<SuiteRecord> SuiteRecordFromJson(const nlohmann::json& summary);

}  // namespace locksmith

#endif  // LOCKSMITH_REPORTS_SUITE_RECORD_READER_H_
