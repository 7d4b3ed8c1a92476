#include "harness/interruption_watch.h"

#include <string>

namespace locksmith {

InterruptionWatch::InterruptionWatch(SignalWatcher& signals, Interruption& interruption,
                                     RunLog& log)
    : signals_(signals) {
  signals.OnInterrupt([&interruption, &log](int sig) {
    if (std::string line = interruption.Note(sig); !line.empty()) log.Warn("signal " + line);
  });
  // A signal that came before the callback was set (it was set under the
  // watcher's lock, so signal() is known by now).
  if (signals.interrupted()) {
    if (std::string line = interruption.Note(signals.signal()); !line.empty()) {
      log.Warn("signal " + line);
    }
  }
}

InterruptionWatch::~InterruptionWatch() { signals_.OnInterrupt(nullptr); }

}  // namespace locksmith
