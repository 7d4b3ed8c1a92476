// PassWorker: a group of CheckPasses run on a thread of its own over
// batches of ops that another thread fills, so that a composite's checkers
// judge one history on two cores (each pass still sees every op in order,
// on one thread). The batch is read, never changed, by both threads while
// the worker runs: Start hands it over, Wait hands it back. Start and Wait
// belong to one thread, alternately; the passes are the worker's from the
// first Start until Wait returns the last time.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

#include "checker/checker.h"

namespace locksmith {

class PassWorker {
 public:
  explicit PassWorker(std::vector<CheckPass*> passes) : passes_(std::move(passes)) {}
  ~PassWorker();
  PassWorker(const PassWorker&) = delete;
  PassWorker& operator=(const PassWorker&) = delete;

  // Every pass observes ops[0, n) on the worker's thread; `ops` must stay
  // as it is until Wait returns.
  void Start(const std::vector<Op>* ops, size_t n);
  // Until the batch Start gave is observed.
  void Wait();

 private:
  void Loop();

  const std::vector<CheckPass*> passes_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable changed_;
  const std::vector<Op>* ops_ = nullptr;  // guarded by mu_: the batch being observed
  size_t n_ = 0;                          // guarded by mu_
  bool busy_ = false;                     // guarded by mu_
  bool stop_ = false;                     // guarded by mu_
};

}  // namespace locksmith
