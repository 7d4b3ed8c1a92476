// Suite nights for the trend and compare tests: records made of hand-set
// runs, written by the summary writer (SuiteSummaryJson) and read back by
// its reader, so a fixture is exactly what a suite's summary.json holds.
// Test-only; header-only; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "reports/suite_record_reader.h"
#include "reports/suite_report.h"

namespace locksmith::testing {

// One cell of a night: `runs` repeats of which the first `violations` were
// judged invalid, the next `unknown` unknown, the rest valid.
struct NightCell {
  std::string cell;
  int runs = 5;
  int violations = 0;
  double acquire_p50_ms = 1.5;
  double acquire_p99_ms = 12;
  double grants_per_s = 80;
  double in_doubt = 0.002;
  int unknown = 0;
};

// A night of suite `name` with `cells`, as its summary.json reads back.
inline SuiteRecord NightRecord(const std::string& name, const std::vector<NightCell>& cells) {
  SuiteRecord record;
  record.name = name;
  record.seed = 7;
  for (const NightCell& c : cells) {
    record.cells.push_back(c.cell);
    record.planned_runs += c.runs;
    for (int i = 0; i < c.runs; ++i) {
      SuiteRun run;
      run.cell = c.cell;
      run.repeat = i;
      run.seed = 100 + i;
      run.dir = c.cell + "/2026010" + std::to_string(i) + "T000000.000Z";
      const bool invalid = i < c.violations;
      const bool unknown = !invalid && i < c.violations + c.unknown;
      run.verdict = invalid ? "invalid" : unknown ? "unknown" : "valid";
      run.exit_code = invalid ? 1 : unknown ? 2 : 0;
      if (invalid) run.anomalies["double-holder"] = 1;
      run.acquire_p50_ms = c.acquire_p50_ms;
      run.acquire_p99_ms = c.acquire_p99_ms;
      run.grants_per_s = c.grants_per_s;
      run.in_doubt = c.in_doubt;
      run.duration_s = 10;
      run.lock = "redis/redis";
      run.schedule = "mutex, kill";
      record.runs.push_back(run);
    }
  }
  auto read = SuiteRecordFromJson(SuiteSummaryJson(record));
  return read ? *read : SuiteRecord{};
}

// Five nights of suite "nightly": "kill-clean" clean throughout,
// "redlock-clock" violating every night (2 of 5), "zk-partition" clean with
// its acquire p99 four times slower on the last night, and "replica-failover"
// clean on nights 1-4 and 3 of 5 invalid on night 5: the one regression.
inline std::vector<SuiteRecord> FiveNights() {
  std::vector<SuiteRecord> nights;
  for (int n = 0; n < 5; ++n) {
    const bool last = n == 4;
    nights.push_back(NightRecord(
        "nightly", {{"kill-clean", 5, 0, 1.2 + 0.1 * n, 10, 90.0 - n, 0.001},
                    {"redlock-clock", 5, 2, 3.0, 25, 40, 0.01 * n},
                    {"zk-partition", 5, 0, 4.0, last ? 80.0 : 20.0, 30, 0.004},
                    {"replica-failover", 5, last ? 3 : 0, 2.0, 15, 60, last ? 0.03 : 0.005}}));
  }
  return nights;
}

}  // namespace locksmith::testing
