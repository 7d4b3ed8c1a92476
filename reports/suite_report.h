// SuiteReport: what a suite's runs showed, as the files people read, each
// written by its own unit: the summary.json (reports/suite_summary_json.h),
// the junit.xml a CI reads (reports/suite_junit.h) and the index.html a
// browser opens (reports/suite_index_html.h), from the runs' rows
// (reports/suite_run.h) and their figures (reports/suite_stats.h). Pure
// rendering; not thread-safe.
#pragma once

#include <string>

#include "base/result.h"
#include "reports/suite_index_html.h"
#include "reports/suite_junit.h"
#include "reports/suite_run.h"
#include "reports/suite_stats.h"
#include "reports/suite_summary_json.h"

namespace locksmith {

// Writes summary.json, junit.xml and index.html into `dir`.
Status WriteSuiteReports(const SuiteRecord& suite, const std::string& dir);

}  // namespace locksmith
