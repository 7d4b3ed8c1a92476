// A suite's summary.json: every run's row, each cell's and each lock's
// figures under each schedule (reports/suite_stats.h), and the suite's exit
// code. Read back by SuiteRecordFromJson (reports/suite_record_reader.h).
// Pure; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include "reports/suite_run.h"

namespace locksmith {

nlohmann::json SuiteSummaryJson(const SuiteRecord& suite);

}  // namespace locksmith
