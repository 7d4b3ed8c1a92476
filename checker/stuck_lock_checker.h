// StuckLockChecker: a lock key that nobody could acquire for longer than
// `leases` leases while no live client held it -- the lock the flash sale's
// SETNX-then-EXPIRE client leaves when it dies between the two commands (a
// key without a TTL that no release will ever delete). Per key, in history
// order:
//   live holders  processes whose acquire of the key completed ok and that
//                 have not invoked its release yet (nor been told by a
//                 lock-lost event that the lock is gone), and have not crashed
//                 (a client-crash nemesis op, info with "process", ends
//                 every hold of that process: a crashed client is not
//                 live; its open acquire never made it a holder)
//   free window   from the moment the key had no live holder (the last
//                 release invoke, or a crash, or the key's first op) to the
//                 next ok acquire of it (or the end of the history)
//   stuck         a free window whose failed acquires (invoked inside it)
//                 span more than `leases` x the key's lease (the largest
//                 lease_ms its acquires asked for) from the window's start
//                 to the last such failure's completion
// A lock that expires is acquired again within about a lease, and a live
// holder (even one paused past its lease) is not the lock's fault: neither
// is stuck. Only a crash explains a stuck lock: a window with no crashed
// acquirer or holder behind it is a service that did not answer (a paused
// or cut-off server, a lost quorum refuse everyone as long), counted in the
// stats (refused_without_a_crash) and left to the availability checker. The
// anomaly (class "crashed-acquirer") names the key, the window, the last
// grant before it (the last ok acquire of the key), and the crashed
// processes whose acquire of the key was open at their crash or who held it,
// with the crash ops. A key whose acquires carry no lease_ms cannot be judged
// (counted in stats). One pass; memory follows the keys and processes.
// Stateless; thread-safe.
#pragma once

#include <cstdint>

#include "base/option_set.h"
#include "checker/checker.h"

namespace locksmith {

// The workloads' typed option for the checker: "stuck_leases" /
// --stuck-leases into `field` (default 3 where the workload sets it).
void DeclareStuckLeases(OptionSet& set, int* field);

class StuckLockChecker : public Checker {
 public:
  static constexpr int kDefaultLeases = 3;
  explicit StuckLockChecker(int leases = kDefaultLeases) : leases_(leases) {}
  std::string Name() const override { return "stuck-lock"; }
  std::unique_ptr<CheckPass> Start() const override;

 private:
  const int leases_;
};

}  // namespace locksmith
