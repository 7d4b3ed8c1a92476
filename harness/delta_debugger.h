// DeltaDebugger: Zeller and Hildebrandt's ddmin, which finds a 1-minimal
// subset of a failing input (here: a run's fault windows) that still fails,
// by testing parts and complements of the current set with a replay
// callback. Pure: the callback is the only contact with the world, so the
// algorithm is tested with a fake (harness/delta_debugger_test.cc); `locksmith
// shrink` (harness/shrink_command.h) hands it real runs. Also the bisection
// that shortens the time limit afterwards. Not thread-safe: one search at a
// time, on the caller's thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <vector>

namespace locksmith {

// What one candidate's replay showed.
enum class Trial {
  kReproduced,     // the anomaly came back
  kNotReproduced,  // it did not (in every try)
  kOutOfBudget,    // no time was left to try: the search stops with what it has
};

class DeltaDebugger {
 public:
  // Replays the elements `subset` (indices into the input, ascending).
  using Oracle = std::function<Trial(const std::vector<size_t>& subset)>;

  struct Outcome {
    std::vector<size_t> kept;  // ascending
    // The search ran its course: removing any one element of `kept` does not
    // reproduce (1-minimal). False when the budget ran out first: `kept` is
    // the smallest reproducing set found so far.
    bool complete = true;
    int tested = 0;  // candidates the oracle was asked about (each at most once)
  };

  explicit DeltaDebugger(Oracle oracle) : oracle_(std::move(oracle)) {}

  // ddmin over {0, ..., n-1}, which is known to reproduce (never asked). The
  // empty set is never asked either: a run without faults is taken not to
  // reproduce, as ddmin assumes.
  Outcome Minimize(size_t n);

 private:
  // The oracle's answer for `subset`, asked once per distinct subset.
  Trial Test(const std::vector<size_t>& subset);

  Oracle oracle_;
  std::map<std::vector<size_t>, Trial> answers_;
  int tested_ = 0;
};

// The shortest value in (lo, hi] that reproduces, to within `resolution`,
// by bisection; `hi` is known to reproduce (never asked), `lo` is taken not
// to. Values asked are multiples of `resolution`. Assumes that a longer
// value reproduces whenever a shorter one does.
struct Bisection {
  int64_t shortest = 0;
  bool complete = true;  // false: the budget ran out first
  int tested = 0;
};
Bisection BisectShortest(int64_t lo, int64_t hi, int64_t resolution,
                         const std::function<Trial(int64_t value)>& oracle);

}  // namespace locksmith
