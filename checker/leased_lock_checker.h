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
// Stateless free functions; safe to call from any thread.
#pragma once

#include <cstdint>
#include <string_view>

#include "checker/history.h"
#include "checker/result.h"

namespace locksmith {

enum class LeaseRule { kAuto, kOn, kOff };

// "auto", "on" or "off".
Result<LeaseRule> ParseLeaseRule(std::string_view name);
std::string_view LeaseRuleName(LeaseRule rule);

// True when some client acquire records a lease: its invoke's value has a
// numeric "lease_ms", or its ok completion's value a numeric "validity_ms".
bool HistoryRecordsLeases(const History& history);

// The decision: on, off, or (auto) whether the history records leases.
bool LeaseRuleApplies(LeaseRule rule, const History& history);

// Ops a lock model reads as a release (mutex and read-write lock names).
bool IsReleaseOp(std::string_view f);

// Client releases that completed `fail`: what the rule rewrites.
int64_t CountFailedReleases(const History& history);

// The rewrite itself: every failed client release becomes `info`, its error
// saying why. Pure; everything else is copied unchanged.
History ExpireFailedReleases(const History& history);

}  // namespace locksmith
