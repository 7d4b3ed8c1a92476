// RunConfig: the whole resolved configuration of one run, typed and
// validated. It comes from CLI flags over an optional JSON scenario file (the
// same keys as the flags) and is written to config.json, seed included, so
// `locksmith run --config <run>/config.json` replays a run. Plain value; not
// thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/result.h"
#include "workloads/workload.h"

namespace locksmith {

// Bounds on input, so a stray file or field cannot stall a run or bloat
// config.json and report.html (which copy the text fields).
inline constexpr size_t kMaxConfigFileBytes = 1 << 20;  // a config file: 1 MiB
inline constexpr size_t kMaxDescriptionBytes = 4096;    // "description": a few paragraphs
inline constexpr size_t kMaxScenarioBytes = 64;         // "scenario": a debate row id, e.g. "6"
inline constexpr size_t kMaxStoreBytes = 4096;          // "store": a path (PATH_MAX)

struct RunConfig {
  std::string test_name;  // empty: derived from backend, workload, nemesis
  std::string store = "store";
  std::string backend = "redis";
  std::string workload = "mutex";
  WorkloadOptions workload_options;  // concurrency, keys, hold, backoff, lease, rate
  double time_limit_s = 30;
  std::optional<uint64_t> seed;      // unset: drawn at random, then logged
  std::vector<std::string> nemesis;  // fault families, e.g. {"kill"}
  double nemesis_interval_s = 10;
  int64_t restart_delay_ms = 100;    // kill: downtime, at most until the next fault cycle
  std::string redis_persistence = "none";  // none | everysec | always
  int64_t client_timeout_ms = 500;   // deadline of every client call
  bool loopback = false;             // never use namespaces, even as root
  std::string scenario;              // the DESIGN/debate row a scenario file tests
  std::string prediction;            // what the debate predicts: "Y" (two holders possible) or "N"
  std::string description;           // free text from a scenario file

  nlohmann::json ToJson() const;
  // The test name actually used for the store directory.
  std::string ResolvedTestName() const;
};

// Checks every field; the error is one line naming the field and the problem.
Status ValidateRunConfig(const RunConfig& config);

// Reads keys of `j` into `config` (unknown keys and wrong types are errors
// naming the key); keys not present keep their current value.
Status MergeRunConfigJson(const nlohmann::json& j, RunConfig& config);
// Loads a scenario/config JSON file into `config` (see MergeRunConfigJson).
// Only a regular file of at most kMaxConfigFileBytes: a FIFO or device
// would block or never end. Errors name the file, and for a number out of
// range (1e400) the key holding it.
Status LoadRunConfigFile(const std::string& path, RunConfig& config);

std::vector<std::string> NemesisNames();
std::vector<std::string> PersistenceModes();

}  // namespace locksmith
