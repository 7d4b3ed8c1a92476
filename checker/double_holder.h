// DoubleHolderChecker: finds every moment two processes held the same lock
// key at once, by intervals (no search). A hold is [acquire ok, release
// invoke] of one process on one key. An acquire that ended `info` may have
// taken effect: when its token is later released with `ok` (by any process),
// the lock was certainly held at some moment of that release's window
// [invoke, completion] (a timed-out SET may run late, so not necessarily
// before); an overlap with it is certain only for a hold covering the whole
// window. Otherwise the info acquire is a possible hold [invoke, invoke +
// lease]. Possible overlaps are counted in stats but do not make the history
// invalid (the acquire may never have happened).
//
// Lock events and re-entries follow the lease rule of
// checker/leased_lock_checker.h: an ok renewal (or re-entry) extends the
// holder's lease from the moment it learnt of it; a lock-lost notice ends the
// hold at its time; nested re-entry acquires / releases are not holds.
//
// Each overlap is classified by the clients' own lease reckoning (lease end =
// acquire completion + validity_ms, extended by the renewals the holder had
// seen when the overlap began):
//   unsafe-grant      both leases were still valid during the overlap: the
//                     service broke mutual exclusion (failover, clock jump,
//                     restart without persistence);
//   expired-lease-use one holder kept working past its validity (a pause):
//                     only fencing helps.
// A hold whose validity is its session's ("session_lease", ZooKeeper) is
// valid until its client learns the session was cut off or lost: until the
// cut-off its lock-lost notice names (cut_off_ms), or for as long as it is
// held when the notice names none. So two such holds that overlap while
// neither client had been cut off are an unsafe grant (the service granted
// the lock twice); one whose client had been cut off, paused past its
// session timeout, makes an expired-lease use.
//
// As the rw-lock checker (HoldModes::kReadWrite, named "rw-lock") it judges a
// read-write lock by the same rules: a hold whose acquire invoke says
// "mode": "read" is shared, any other is exclusive. Two shared holds may
// overlap (counted as reader_overlaps, certain ones only, so a test can tell
// a lock that really shares from one that is secretly exclusive); an overlap
// with an exclusive hold is an anomaly as above, each holder naming its mode.
//
// One pass, in history order: a hold is judged against the others of its
// key once it is closed (its release invoked, its lock-lost notice seen, or
// the history's end), and kept only while a hold still to close could
// overlap it (its end after the oldest client invoke still open). Memory
// follows the keys, the processes and the holds in flight, plus each info
// acquire whose token a release may still prove (possible holds); listed
// overlaps are the first `max_listed` in the order of a sweep by start.
// Times are taken to follow history order (the recorder stamps them so);
// an imported history whose times run backwards by more than 10 ms may
// lose overlaps with holds already dropped. Stateless; Check and Start are
// thread-safe.
#pragma once

#include <cstddef>

#include "checker/checker.h"

namespace locksmith {

enum class HoldModes {
  kExclusive,  // every hold excludes every other ("double-holder")
  kReadWrite,  // "mode": "read" holds share with each other ("rw-lock")
};

class DoubleHolderChecker : public Checker {
 public:
  // At most `max_listed` overlaps are listed as anomalies; all are counted.
  explicit DoubleHolderChecker(size_t max_listed = 1000, HoldModes modes = HoldModes::kExclusive)
      : max_listed_(max_listed), modes_(modes) {}
  std::string Name() const override {
    return modes_ == HoldModes::kReadWrite ? "rw-lock" : "double-holder";
  }
  std::unique_ptr<CheckPass> Start() const override;

 private:
  size_t max_listed_;
  HoldModes modes_;
};

}  // namespace locksmith
