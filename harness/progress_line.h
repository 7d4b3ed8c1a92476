// ProgressLine: the text of the live progress line, from a ProgressCounter
// snapshot and the run's clock, e.g.
//   run 3/12 redis.kill | 12.5/30 s | 1520 ops/s | ok 10234 fail 523 info 2 |
//   faults: kill | double holders: 1
// (one line: the label's and the faults' control characters are escaped).
// Pure; thread-safe.
#pragma once

#include <cstddef>
#include <string>

#include "harness/progress_counter.h"

namespace locksmith {

struct ProgressLine {
  std::string label;     // "run 3/12 redis.kill" in a suite; empty for a lone run
  double elapsed_s = 0;  // since the workload started
  double limit_s = 0;    // the workload's time limit
  double ops_per_s = 0;  // client completions per second, lately
  ProgressCounter::Snapshot counts;

  // The line; cut to `width` columns (with "…") when width > 0, so a
  // terminal never wraps it and "\r" can rewrite it in place.
  std::string Format(size_t width = 0) const;
};

}  // namespace locksmith
