// AvailabilityChecker: how often clients got the lock while faults were in
// force and while none was. An acquire attempt is a client "acquire" invoke
// that completed; it is available when it completed ok, answered when it
// completed ok or fail (a definite no: the lock was held by another, or the
// request was never sent, e.g. connection refused), in doubt when info
// (the service did not answer in time: an outage, not contention); of the
// fails, unanswered when the acquire says its wait ended with no answer on
// the lock ("gave_up": "unanswered": nothing sent, no master), rather than
// the lock staying busy ("busy"). Attempts are
// counted inside fault windows (invoked while some window was open: from its
// begin op's invoke to its end op's completion, or to the history's end when
// the run was cut short) and outside. Per window: its family, begin and end
// (ms from the run's start), attempts and oks invoked within it, and the
// recovery: ms from the window's begin to the first ok acquire invoked after
// the begin op completed (for a failover, whose begin op completes once a
// replica is promoted, the first lock granted after the promotion; null when
// none came before the window closed). Never invalidates a history.
// One pass: the windows, and the acquires of the last 10 s of the history
// (an acquire is counted once the history is 10 s past its invoke, so that
// a fault op recorded a little after it still places it; a history whose
// ops are more out of time order than that may count such an acquire
// outside its window). Stateless; Check and Start are thread-safe.
#pragma once

#include "checker/checker.h"

namespace locksmith {

class AvailabilityChecker : public Checker {
 public:
  std::string Name() const override { return "availability"; }
  std::unique_ptr<CheckPass> Start() const override;
};

}  // namespace locksmith
