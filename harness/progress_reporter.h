// ProgressReporter: shows a run's progress while its workload runs, from a
// ProgressCounter. When stderr is a terminal: one status line (ProgressLine)
// redrawn in place twice a second and cleared when the reporter ends; log
// lines echoed to stderr meanwhile go above it (WriteAboveStatus). When it is
// not (CI logs, files): a plain line every few seconds through `plain`
// (the run's log). A thread of its own, stopped and joined by the
// destructor; the static functions are thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "harness/progress_counter.h"

namespace locksmith {

class ProgressReporter {
 public:
  struct Options {
    std::string label;  // "run 3/12 redis.kill" in a suite
    double limit_s = 0;
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    bool terminal = false;  // draw the status line (else plain lines)
    std::chrono::milliseconds interval{500};  // between redraws or plain lines
    std::function<void(const std::string&)> plain;  // where plain lines go
  };

  ProgressReporter(const ProgressCounter& counter, Options options);
  ~ProgressReporter();
  ProgressReporter(const ProgressReporter&) = delete;
  ProgressReporter& operator=(const ProgressReporter&) = delete;

  // stderr is a terminal that can rewrite a line (TERM is not "dumb").
  static bool StderrIsTerminal();
  // Writes `line` (no newline) and a newline to stderr, above the status
  // line when one is drawn (it is drawn again below).
  static void WriteAboveStatus(const std::string& line);

 private:
  void Loop();
  std::string Line(double ops_per_s) const;

  const ProgressCounter& counter_;
  const Options options_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace locksmith
