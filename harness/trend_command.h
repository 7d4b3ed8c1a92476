// TrendCommand: `locksmith trend OUT INPUT...` (trend.html from suites'
// summary.json files, suite directories or a whole store) and `locksmith
// compare OLD NEW` (the cells of NEW whose verdict, violations or acquire
// times differ from OLD's, and the regressions: exit 1). Both read only
// summaries, never a run directory, so CI can keep the small summary.json
// files and drop the rest. Functions of the main thread.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "reports/suite_trend.h"
#include "reports/trend_html.h"

namespace locksmith {

// A night from a summary.json or a suite directory holding one; its label
// the suite directory's stamp as a time when it has one, else `path`; its
// link the index.html beside the summary, relative to `page_dir` (none when
// there is no such file). A missing, damaged or foreign file is an error
// naming it.
Result<SuiteNight> ReadNight(const std::string& path, const std::string& page_dir);

// The nights `inputs` name, by suite, each suite's nights in the order
// given; an input that is a store root (a directory with suites/ and no
// summary.json) gives every suite it holds, its nights by stamp (a damaged
// summary there is skipped with a line in `warnings`). At most
// kMaxTrendNights per suite, the newest.
Result<std::vector<TrendSection>> TrendSectionsOf(const std::vector<std::string>& inputs,
                                                  const std::string& page_dir,
                                                  std::vector<std::string>& warnings);

// `locksmith trend`: writes OUT/trend.html; 0, or 254 with one line.
int WriteTrend(const std::string& out_dir, const std::vector<std::string>& inputs,
               std::ostream& out, std::ostream& err);

// `compare --json`'s document.
nlohmann::json CompareJson(const SuiteNight& old_night, const SuiteNight& new_night,
                           const std::vector<CellChange>& changes);

// `locksmith compare OLD NEW`: 1 when a cell regressed, 0 otherwise, 254
// with one line when either is not a readable summary.
int CompareSummaries(const std::string& old_path, const std::string& new_path, bool json,
                     std::ostream& out, std::ostream& err);

}  // namespace locksmith
