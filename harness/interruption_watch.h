// InterruptionWatch: while it lives, a signal the SignalWatcher catches is
// a reported interruption of the run, never a crash: noted at once in the
// run's Interruption (with the phase it came in) and logged; the run acts
// on it at its next poll (or at once while servers start). A signal that
// came before the watch began is noted as it begins. The watcher outlives
// the run: the watch detaches its callback when it ends. On the run's
// thread (the callback runs on the watcher's).
#pragma once

#include "harness/interruption.h"
#include "harness/run_log.h"
#include "harness/signal_watcher.h"

namespace locksmith {

class InterruptionWatch {
 public:
  InterruptionWatch(SignalWatcher& signals, Interruption& interruption, RunLog& log);
  ~InterruptionWatch();
  InterruptionWatch(const InterruptionWatch&) = delete;
  InterruptionWatch& operator=(const InterruptionWatch&) = delete;

 private:
  SignalWatcher& signals_;
};

}  // namespace locksmith
