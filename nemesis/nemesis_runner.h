// NemesisRunner: plays a fault schedule on its own thread, recording every
// fault as a nemesis op pair (invoke, then info with what happened: as in
// Jepsen, a fault's effect is never certain). Stop() wakes the thread, lets
// a fault op in progress finish, and joins; it does not heal (the run calls
// Nemesis::Teardown afterwards). Start/Stop from one thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "checker/op_recorder.h"
#include "nemesis/schedule.h"

namespace locksmith {

class NemesisRunner {
 public:
  NemesisRunner(Nemesis& nemesis, OpRecorder& recorder, std::vector<ScheduledFault> schedule)
      : nemesis_(nemesis), recorder_(recorder), schedule_(std::move(schedule)) {}
  ~NemesisRunner() { Stop(); }
  NemesisRunner(const NemesisRunner&) = delete;
  NemesisRunner& operator=(const NemesisRunner&) = delete;

  // Schedule times count from `zero`.
  void Start(std::chrono::steady_clock::time_point zero);
  void Stop();
  // Fault ops performed so far, and how many of them failed.
  int performed() const;
  int failed() const;

 private:
  void Loop(std::chrono::steady_clock::time_point zero);
  void Perform(const FaultOp& op);

  Nemesis& nemesis_;
  OpRecorder& recorder_;
  const std::vector<ScheduledFault> schedule_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  int performed_ = 0;
  int failed_ = 0;
  std::thread thread_;
};

}  // namespace locksmith
