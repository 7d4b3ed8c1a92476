// What a lock op's fields say, as locksmith's workloads record them and
// every layer reads them: which ops acquire and release, the lock events a
// client reports while it holds a lock (renew, lock-lost), re-entries, the
// token, and when a grant's lease ends by its holder's own reckoning. The
// lease rule that the checkers build on these (checker/leased_lock_checker.h)
// says what they mean for a verdict.
//
// A lock event is a lone op (a completion without invoke) of the holding
// process, with the hold's key and "token" in its value:
//   renew      ok: the lease was extended and now ends at the op's time +
//              value.validity_ms; fail / info: it was not / may have been;
//   lock-lost  the holder was told its lock is gone: its hold ends at this
//              op's time; value.cut_off_ms may say how long before it the
//              client was cut off from the service.
// A lock whose validity is its client's session (ZooKeeper) says so on its
// ok acquire, "session_lease": true. A re-entry of a reentrant lock has
// "reentry": true in its invoke's value.
//
// Stateless free functions; safe to call from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "history/history.h"

namespace locksmith {

// Ops a lock model reads as an acquire ("acquire", "acquire-read", ...) or a
// release (mutex and read-write lock names).
bool IsAcquireOp(std::string_view f);
bool IsReleaseOp(std::string_view f);

// Whether `op` is a client acquire that records a lease: its invoke's value
// has a numeric "lease_ms", or its ok completion's value a numeric
// "validity_ms".
bool RecordsLease(const Op& op);

inline constexpr std::string_view kRenewOp = "renew";
inline constexpr std::string_view kLockLostOp = "lock-lost";

// A lock event: a client op that is not an invoke, named renew or lock-lost.
bool IsLockEvent(const Op& op);
// A lock-lost event.
bool IsLockLoss(const Op& op);
// A nested acquire / release of a reentrant lock: "reentry": true in the
// invoke's value.
bool IsReentry(const Op& invoke);
// The token an op's value names ("token"), or "".
std::string TokenOf(const Op& op);
// When the lease an ok acquire, ok renew or ok re-entry gave its holder ends
// by the holder's own reckoning, in ns: op.time + value.validity_ms; nullopt
// when the op records no validity (or an absurd one), or its lease is its
// session's.
std::optional<int64_t> LeaseEndOf(const Op& ok);
// An ok acquire whose validity is its client's session ("session_lease").
bool HasSessionLease(const Op& ok);
// When a lock-lost notice says its holder was cut off from the service, in
// ns: op.time - value.cut_off_ms; nullopt when it does not say.
std::optional<int64_t> CutOffOf(const Op& lost);
// The process a client-crash nemesis op says crashed (its acquire stays
// open for good), or -1.
int64_t CrashedProcessOf(const Op& op);

}  // namespace locksmith
