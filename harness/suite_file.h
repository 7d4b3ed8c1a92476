// SuiteFile: a suite file (JSON) turned into the runs it asks for, each
// checked before any starts. A suite is a matrix: "base" run keys, and
// "matrix" axes whose values are either a value of the key the axis is named
// after ("nemesis": ["none", "kill"]) or an object of run keys with an
// optional "name" ("lock": [{"name": "zk", "backend": "zookeeper", ...}]);
// every combination of one value per axis is a cell, but for those an
// "exclude" entry names (a family that does not fit a backend). "scenarios" adds the
// named scenario files as cells (as they are: the base keys are for matrix
// cells), and "cells" adds explicit ones. Every cell runs "test_count" times
// (a cell may give its own). Pure but for reading the files; not
// thread-safe.
//
//   {"description": "...", "seed": 7, "test_count": 3,
//    "base": {"time_limit_s": 10, "concurrency": 5},
//    "matrix": {"lock": [{"name": "redis", "backend": "redis"},
//                        {"name": "zk", "backend": "zookeeper", "client": "zk-fair"}],
//               "nemesis": ["none", "kill"]},
//    "exclude": [{"lock": "zk", "nemesis": "kill"}],
//    "scenarios": ["redlock-no-faults"],
//    "cells": [{"name": "zk-rw", "backend": "zookeeper", "client": "zk-rw"}]}
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "harness/run_config.h"

namespace locksmith {

inline constexpr int kMaxTestCount = 1000;  // runs of one cell
inline constexpr size_t kMaxSuiteCells = 1000;

struct SuiteCell {
  std::string name;  // unique in the suite; a directory name ("redis.kill")
  std::string scenario;  // the library scenario the cell runs; empty for others
  RunConfig config;  // validated; its seed is the cell's base seed when the file gave one
  int test_count = 1;
};

struct Suite {
  std::string name;  // the file's name without .json
  std::string description;
  std::optional<uint64_t> seed;
  std::vector<SuiteCell> cells;
  // SHA-256 of the file's JSON (its comments and spacing aside), which a
  // shard records so that shards of an edited file are not merged; empty
  // for a suite made from flags (`run --test-count`).
  std::string digest;
};

// What `locksmith suite` overrides in every run (quick checks, another store).
// Cells with scripted steps keep their time limit and interval, which the
// steps are timed against. time_scale multiplies the time limit (after
// time_limit_s) and the fault interval of every other cell, and nothing
// else: how long each fault lasts, the workload's holds and leases and the
// servers' timeouts are what the faults mean, so they stay (a window still
// ends before its family's next one, which shortens the faults a shorter
// interval would overrun).
struct SuiteOverrides {
  std::optional<double> time_limit_s;
  std::optional<std::string> store;
  std::optional<uint64_t> seed;
  std::optional<double> time_scale;  // above 0, at most kMaxTimeScale
  std::optional<int> test_count;     // runs of every cell, instead of the file's
};

inline constexpr double kMaxTimeScale = 100;
// Whether `scale` can scale a suite: a number above 0 and at most
// kMaxTimeScale (the error names --time-scale).
Status CheckTimeScale(double scale);

// A --seed flag's text (parsed by hand: CLI11 would wrap "-1" around to
// 2^64-1); the error names --seed.
Result<uint64_t> ParseSeedFlag(const std::string& text);

// The suite `j` describes (named `name`), with `overrides` applied to every
// cell. Errors are one line naming the field or the cell ("cell
// redis.kill: --client: ...").
Result<Suite> ParseSuite(const nlohmann::json& j, const std::string& name,
                         const SuiteOverrides& overrides);
// ParseSuite of a file; errors start with the file's path.
Result<Suite> LoadSuiteFile(const std::string& path, const SuiteOverrides& overrides);

// The seed of a cell's `repeat`-th run: the cell's own seed for the first
// (so a cell's run 0 replays `locksmith run --seed S`), derived from it for
// the others.
uint64_t RepeatSeed(uint64_t cell_seed, int repeat);

}  // namespace locksmith
