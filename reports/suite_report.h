// SuiteReport: what a suite's runs showed, as the files people read: the
// summary.json, the junit.xml a CI reads (one test case per run) and the
// index.html a browser opens (a comparison of every lock setting under each
// fault schedule: grants per second, time to acquire, acquires in doubt and
// failed for want of an answer, violations with their Wilson 95% interval;
// each cell's figures, and every run linking to its report). Built from each run's results.json
// and config.json; pure rendering. Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace locksmith {

// One run of a suite, as its tables show it.
struct SuiteRun {
  std::string cell;
  int repeat = 0;
  uint64_t seed = 0;
  std::string dir;      // relative to the suite's directory; empty when none was made
  int exit_code = 0;    // as `locksmith run` would have exited
  std::string verdict;  // "valid", "invalid", "unknown" or "failed"
  std::string error;    // why it failed or was interrupted
  std::map<std::string, int> anomalies;      // count by type
  std::optional<double> first_violation_s;   // when the first anomaly became certain
  std::optional<double> availability_inside;   // acquires ok / attempts in fault windows
  std::optional<double> availability_outside;  // and outside them
  // Acquires answered (ok or a definite no: not in doubt) / attempts, in and
  // out of fault windows: tells a busy lock from a service that went silent.
  std::optional<double> answered_inside, answered_outside;
  // Acquires that failed with no answer on the lock (their wait ended with
  // nothing sent, no master: not a lock that stayed busy) / acquires, in
  // and out of fault windows.
  std::optional<double> unanswered_inside, unanswered_outside;
  std::optional<double> in_doubt;  // acquires in doubt (info) / acquires
  // Time to acquire: invoke to grant, the wait for the lock included.
  std::optional<double> acquire_p50_ms, acquire_p99_ms;  // of ok acquires
  std::optional<double> grants_per_s;  // ok acquires per second of the run
  std::optional<double> ops_per_s;
  double duration_s = 0;
  std::string lock;      // "redis/redis": the backend and its client
  std::string schedule;  // the workload and faults: "mutex, kill" or "scenario NAME"
  // Its fault ledger in short: per family, faults observed of those
  // planned ("kill 3/3, client-pause 1/3"); empty when it planned none.
  std::string faults;
};

// A run's row from its results.json and config.json (either may be null:
// a run that failed before it was judged). A run whose faults did not all
// happen ("unfulfilled") has that line as its error.
SuiteRun SuiteRunFrom(const nlohmann::json& results, const nlohmann::json& config);

// The severity order of exit codes: a crash (or bad input) beats invalid,
// which beats unknown, which beats valid. Returns the worst of `codes` (0
// when empty), as Jepsen's test-all does.
int WorstExitCode(const std::vector<int>& codes);

// Wilson score interval (95%) for k successes in n trials; {0, 0} for n = 0.
struct Interval {
  double low = 0;
  double high = 0;
};
Interval WilsonInterval(int k, int n);

// Runs that share a key (a cell, or a lock under one schedule), summed up.
struct RunGroup {
  int runs = 0;
  int judged = 0;      // valid or invalid: the runs a rate can count
  int violations = 0;  // invalid runs
  Interval rate;       // of violations among judged runs
  std::optional<double> median_first_violation_s;
  std::optional<double> mean_availability_inside, mean_availability_outside;
  std::optional<double> mean_answered_inside, mean_answered_outside;
  std::optional<double> median_acquire_p50_ms, median_acquire_p99_ms;
  std::optional<double> mean_grants_per_s, mean_in_doubt;
  std::optional<double> mean_unanswered_inside, mean_unanswered_outside;
};
RunGroup Summarize(const std::vector<const SuiteRun*>& runs);
// "3 of 10 invalid [11–60%]", or "no run judged".
std::string RateText(const RunGroup& g);
// The <style> element the index pages share (a suite's, the store's), with
// the verdict classes valid, invalid, unknown, failed and no-verdict.
const char* IndexPageStyle();

struct SuiteRecord {
  std::string name;
  std::string description;
  uint64_t seed = 0;
  std::vector<SuiteRun> runs;
  std::vector<std::string> cells;  // in suite order
  int planned_runs = 0;
  std::string interrupted;  // what stopped the suite early; empty when nothing did
};

nlohmann::json SuiteSummaryJson(const SuiteRecord& suite);
// Read back by SuiteRecordFromJson (reports/suite_record_reader.h).
std::string RenderSuiteJunit(const SuiteRecord& suite);
std::string RenderSuiteIndex(const SuiteRecord& suite);
// Writes summary.json, junit.xml and index.html into `dir`.
Status WriteSuiteReports(const SuiteRecord& suite, const std::string& dir);

}  // namespace locksmith
