// Interruption: what a run knows about the SIGINT / SIGTERM / SIGHUP that
// stopped it (the signal, the phase of the run it arrived in, and when), so
// that stdout, results.json and junit.xml all say what the verdict covers.
// Note() runs on the SignalWatcher's thread, everything else on the run's
// thread: thread-safe (one mutex).
//
// StartUnlessInterrupted: starts the servers on a helper thread so a signal
// during start-up is acted on at once instead of after the start finishes
// (or gives up after its ready timeout).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace locksmith {

class Interruption {
 public:
  using Clock = std::chrono::steady_clock;
  // The run's phases, in order; a signal's meaning depends on the phase.
  enum class Phase { kSetup, kServers, kWorkload, kFinishing };

  void SetPhase(Phase phase);
  // Records the first signal with the current phase and `at`; returns the log
  // line for it, or "" for a later signal (the watcher's force path).
  std::string Note(int signal, Clock::time_point at = Clock::now());
  // Set once a signal is noted, for whatever polls (the workload, the server
  // start). Poll this rather than the watcher's own flag, which is set a
  // moment before Note runs: whoever stops on it then finds the signal noted.
  const std::atomic<bool>& noted() const { return noted_; }

  // True when a signal arrived before the workload ended: the run stopped
  // early. A signal during teardown or the check interrupts nothing.
  bool StoppedTheRun() const;
  // True when it came before the workload started: no op ran.
  bool BeforeWorkload() const;

  // "by SIGINT after 4.2 s of the 120 s workload; the verdict covers only the
  // ops before it, and is unknown unless they show an anomaly" (the text
  // after "interrupted: "), from the workload's start and time limit. Empty
  // unless StoppedTheRun().
  std::string Describe(Clock::time_point workload_start, double time_limit_s) const;
  // {"signal": "SIGINT", "phase": "workload", "after_s": 4.2, "message": ...}
  // for results.json ("after_s" only in the workload phase); null unless
  // StoppedTheRun().
  nlohmann::json ToJson(Clock::time_point workload_start, double time_limit_s) const;

 private:
  std::string DescribeLocked(Clock::time_point workload_start, double time_limit_s) const;

  mutable std::mutex mu_;
  Phase phase_ = Phase::kSetup;
  int signal_ = 0;
  Phase signal_phase_ = Phase::kSetup;
  Clock::time_point signal_at_;
  std::atomic<bool> noted_{false};
};

// "SIGINT", "SIGTERM", "SIGHUP", else "signal N".
std::string SignalName(int signal);

enum class StartOutcome { kStarted, kFailed, kInterrupted };

// Runs `start` on a helper thread and waits for it, polling `interrupted`.
// Once it is set, calls `abort` at every poll until `start` returns (so
// servers spawned after the first call are stopped too); `abort` must make
// `start` return soon, e.g. by killing the servers it waits for. Returns
// kInterrupted whenever `interrupted` was set by the time `start` returned,
// whatever `start` said (its error goes to *error then, for the log).
StartOutcome StartUnlessInterrupted(const std::function<Status()>& start,
                                    const std::atomic<bool>& interrupted,
                                    const std::function<void()>& abort, std::string* error,
                                    std::chrono::milliseconds poll = std::chrono::milliseconds(10));

}  // namespace locksmith
