// SuiteRun and SuiteRecord: a suite's runs as its tables show them, each
// read from the run's results.json and config.json (SuiteRunFrom); the data
// every suite output (summary.json, junit.xml, index.html, trends) is written
// from. Plain values and pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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

// A run's anomalies in short: "2 double-holder, 1 stale-read".
std::string SuiteRunAnomalyText(const SuiteRun& run);

// A suite and the runs it made, in suite order.
struct SuiteRecord {
  std::string name;
  std::string description;
  uint64_t seed = 0;
  std::vector<SuiteRun> runs;
  std::vector<std::string> cells;  // in suite order
  int planned_runs = 0;
  std::string interrupted;  // what stopped the suite early; empty when nothing did
};

}  // namespace locksmith
