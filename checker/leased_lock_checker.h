// The lease rule of lock histories. The sequential lock models know nothing
// of leases, but a lease-based lock frees itself when its lease expires: a
// release that failed (never sent because the server was down, or "not ours
// any more") does not leave the lock held forever, it becomes free at some
// unknown later time. Under the rule such a release counts as `info` ("may
// take effect at any time after its invoke, or never"), which removes the
// false alarm of a lock that expired and was rightly granted to another
// process, and hides nothing the intervals show: a holder still working
// when another acquires (before it even tried to release) stays
// unlinearizable.
//
// Whether the rule applies is decided in one place, LeaseRuleApplies, which
// CheckLinearizable (checker/check_file.h) calls for every linearizability
// check: `locksmith check FILE --model M` and the checkers of a run
// directory alike. `auto` (the default) applies it to histories that record
// leases the way locksmith's workloads do (an acquire invoke carrying
// "lease_ms", or an ok acquire carrying "validity_ms"); `on` and `off`
// force it for histories from elsewhere.
//
// Leases that a client renews, and locks a client is told it lost, are part
// of the same rule (what their ops' fields say: history/lock_ops.h). A lock client may report events of its own while a lock
// is held (backends/lock_client.h, LockEvent); the workload records each as
// a lone op (a completion without invoke) of the holding process, with the
// hold's key and "token" in its value:
//   renew      ok: the lease was extended (an owner-checked extend) and now
//              ends at the op's time + value.validity_ms; fail / info: it was
//              not / may have been extended (the holder does not count it);
//   lock-lost  the holder was told its lock is gone: its hold ends at this
//              op's time (it stops acting as the holder; it need not
//              release).
// A lock whose validity is its client's session, not a lease (ZooKeeper:
// the lock node lives as long as the session) says so on its ok acquire,
// "session_lease": true; its validity_ms is then only what the session was
// sure to last at the grant. Such a hold is valid until its client learns
// that the session was cut off or lost: its lock-lost notice may say how
// long before it the client was cut off ("cut_off_ms"), and the hold's
// validity ended there.
//
// A re-entry of a reentrant lock is an acquire / release pair of the holder
// with "reentry": true in the invoke's value, nested in its outer hold: the
// outer hold is the hold; an ok re-entry refreshes the lease as a renewal
// does (value.validity_ms).
//
// The double-holder checker reads leases through LeaseEndOf (acquires,
// renewals and re-entries alike) and ends holds at lock-lost; the
// linearizability check applies ApplyLeaseRule, which also turns each
// lock-lost into a release of its holder at its time.
//
// Stateless free functions; safe to call from any thread.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/result.h"
#include "history/history.h"
#include "history/lock_ops.h"

namespace locksmith {

enum class LeaseRule { kAuto, kOn, kOff };

// "auto", "on" or "off".
Result<LeaseRule> ParseLeaseRule(std::string_view name);
std::string_view LeaseRuleName(LeaseRule rule);

// True when some client acquire records a lease (RecordsLease,
// history/lock_ops.h).
bool HistoryRecordsLeases(const History& history);

// The decision: on, off, or (auto) whether the history records leases.
bool LeaseRuleApplies(LeaseRule rule, const History& history);

// Client releases that completed `fail`: what the rule rewrites.
int64_t CountFailedReleases(const History& history);
bool IsFailedRelease(const Op& op);

// lock-lost events in the history.
int64_t CountLockLosses(const History& history);
// The rule as the linearizability check applies it, a rewrite: every failed
// client release becomes `info`, its error saying why; each lock-lost
// becomes a release of its process and key at its time (an invoke and an ok
// completion, value {"lock_lost": true, "token": ...}), in its place. Pure;
// everything else is copied unchanged.
History ApplyLeaseRule(const History& history);
// The same for one op: appends to `*out` what `op` is under the rule (one
// op, or two for a lock-lost).
void AppendUnderLeaseRule(const Op& op, History* out);

}  // namespace locksmith
