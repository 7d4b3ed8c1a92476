// ShrinkSubject: what `locksmith shrink` reads of an invalid run before it
// replays anything: its config (seed, workload, options), the anomaly kind
// to reproduce, and each fault window the run recorded (its begin and end
// ops in the history, with the targets they resolved to), turned into the
// scripted steps that replay it at its recorded time. And the other way: a
// candidate (some of the windows, a time limit) as the RunConfig that runs
// it. A run that cannot be shrunk is refused here, with one line: not a run
// directory, still running, not invalid, no anomaly of the kind asked for,
// no fault window recorded, a config that does not load again. Reads files;
// otherwise pure. Thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "harness/run_config.h"

namespace locksmith {

// One fault window of the run, as scripted steps.
struct RecordedWindow {
  std::string family;  // "kill"
  int64_t window = 0;  // its number in the run
  // {"at_ms", "f", "value"}: the begin op at its recorded time, its targets
  // those it resolved to (the nodes a kill hit, a partition's grudge).
  nlohmann::json begin;
  // {"at_ms", "f"}: the end op; null when the run's heal or teardown ended
  // the window (its end came at or after the time limit, or never).
  nlohmann::json end;
  std::string what;  // in its family's words, from the ledger: "kill n1"
  int64_t begin_ms = 0;
  int64_t end_ms = -1;  // -1: no end step
  // The end failed in the run: another fault had undone this one first (a
  // kill of the paused node); see ReplaySteps.
  bool end_failed = false;
};

struct ShrinkSubject {
  std::string run_dir;
  nlohmann::json config;      // config.json as the run wrote it
  uint64_t seed = 0;
  std::string test_name;
  std::string kind;           // the anomaly kind to reproduce ("unsafe-grant")
  int kind_count = 0;         // how many the run had
  double time_limit_s = 0;
  std::vector<RecordedWindow> windows;  // in order of their begin
};

// Reads RUN_DIR. `kind`: the anomaly kind to reproduce (a "class" or
// "type" of one of the run's anomalies); empty: the first anomaly's.
Result<ShrinkSubject> LoadShrinkSubject(const std::string& run_dir, const std::string& kind);

// "kill n1 at 3.7 s".
std::string WindowText(const RecordedWindow& window);
// "3, 5" of the windows' numbers, or "none".
std::string WindowNumbers(const ShrinkSubject& subject, const std::vector<size_t>& kept);

// The steps replaying windows `kept` (indices into subject.windows) under a
// time limit of `limit_ms`: in time order, an end step at or past the
// limit left to the heal. An end that failed in the run (another fault had
// undone its window) comes just before the first kept window begun inside
// its own, the fault that undid it there.
nlohmann::json ReplaySteps(const ShrinkSubject& subject, const std::vector<size_t>& kept,
                           int64_t limit_ms);

// The run's config with those steps in place of its faults, the time limit
// `limit_ms`, stored under `store` as `test_name`, predicting nothing:
// validated, ready for ExecuteRun.
Result<RunConfig> CandidateConfig(const ShrinkSubject& subject, const std::vector<size_t>& kept,
                                  int64_t limit_ms, const std::string& store,
                                  const std::string& test_name);

// When the last kept step runs: the shortest time limit must be past it.
int64_t LastStepMs(const ShrinkSubject& subject, const std::vector<size_t>& kept);

}  // namespace locksmith
