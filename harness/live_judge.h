// LiveJudge: judges a run's history while the run records it, so that the
// verdict follows the workload's end by what was left to judge, not by the
// whole run. Once history.bin grows past `start_bytes` (below that a history
// is judged whole afterwards, as `check` judges it), a thread of its own, at
// the lowest CPU priority (SCHED_IDLE: the workload's clients come first,
// judging takes what they leave; nice 19 for the time limit's last 40%, to
// leave little for after the workload), reads the log as the recorder
// appends it
// (HistoryLogStream over the recorder's LogExtent) and passes it through the
// run's checkers exactly as JudgeAndReport would afterwards: the same
// stream, the same pass, the same verdict. Memory: the pass's own, bounded
// by the run's keys and processes; the log on disk is the only backlog.
// Once the workload is over (WorkloadOver), the judge's threads go back to
// the process's own priority: nothing of the run's is left to yield to.
// Thread-safe: Follow once, WorkloadOver, then Take once, from the run's
// thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "harness/history_judgement.h"
#include "history/log_extent.h"

namespace locksmith {

class LiveJudge {
 public:
  // `config`: the run's config.json, whose checkers judge. `why_sampled`:
  // JudgeHistoryInOnePass's, the words JudgeAndReport would use. `note`,
  // when given, is told (on the judge's thread) when judging begins and when
  // every event has been read (the keys' searches follow): the run's log.
  LiveJudge(nlohmann::json config, uint64_t start_bytes, std::string why_sampled,
            std::function<void(const std::string&)> note = nullptr);
  // Stops a judgement nobody took (the run failed before judging) and
  // waits for its thread.
  ~LiveJudge();
  LiveJudge(const LiveJudge&) = delete;
  LiveJudge& operator=(const LiveJudge&) = delete;

  // Follows the log at `path` as its writer publishes it in `extent`.
  void Follow(std::string path, std::shared_ptr<const LogExtent> extent);
  // The clients are done: the judge's threads (those at the judge's
  // priority) back to the one the process had, where the system allows.
  void WorkloadOver();
  // Once the extent is sealed: the judgement, or nullopt when the history
  // never grew past start_bytes (or was never followed): judge it whole.
  std::optional<Result<JudgedHistory>> Take();
  // Whether judging began (the history grew past start_bytes).
  bool began() const { return began_; }

 private:
  void Judge(const std::string& path, const std::shared_ptr<const LogExtent>& extent);
  // On the judge's thread, every batch of ops: from hasten_at_ on, the
  // judge's threads from SCHED_IDLE to the lowest nice.
  void Hasten();

  const nlohmann::json config_;
  const uint64_t start_bytes_;
  const std::string why_sampled_;
  const std::function<void(const std::string&)> note_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> began_{false};
  std::mutex priority_mu_;
  bool workload_over_ = false;  // guarded by priority_mu_
  bool lowered_ = false;        // guarded: the judge's thread runs at the judge's priority
  int process_nice_ = 0;        // guarded: what it ran at before
  std::chrono::steady_clock::time_point hasten_at_;  // set by Follow
  bool hastened_ = false;                            // the judge's thread's
  std::thread thread_;
  // Written by thread_ only, read after it is joined.
  std::optional<Result<JudgedHistory>> judged_;
};

}  // namespace locksmith
