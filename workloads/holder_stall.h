// HolderStall: where a lock holder takes the stall the client-pause nemesis
// asked for (ClientPauses), recorded as a "pause" op of the holder's process
// -- shared by every workload that holds locks; and the in-flight pause
// points a worker gives its client (a stall inside an acquire, or inside a
// release whose reply is in flight). Runs on the
// worker's coroutine; not thread-safe (ClientPauses is).
#pragma once

#include <string>

#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "backends/lock_client.h"
#include "workloads/workload.h"

namespace locksmith {

class OpLog;

// Inside a critical section on `key`: takes the stall asked for, if any
// (nothing when the run has no client-pause nemesis). The holder stops as a
// GC pause would stop it, then goes on as if it still held the lock; only
// the end of the run cuts the stall short.
boost::asio::awaitable<void> StallIfAsked(WorkloadContext& ctx, OpLog& log, LockClient& client,
                                          const std::string& key);

// The in-flight pause point of a worker's client (LockClient::
// SetInFlightPausePoint): takes a stall asked for at PausePoint::kInFlight
// and returns its wall-clock step. The worker's acquire is the op in flight,
// so the stall is recorded as two lone "pause" ops of its process (a
// completion without an invoke, as lock events are): {"at": "in-flight",
// "phase": "begin", "ms"} when it begins and {"at": "in-flight", "phase":
// "end", "ms", "stalled_ms", "clock_step_ms"} when it ends. Nothing when the
// run has no client-pause nemesis. `ctx`, `log` and `client` must outlive
// the client's acquires.
InFlightPausePoint InFlightStalls(WorkloadContext& ctx, OpLog& log, LockClient& client);

// The same for the release-in-flight point (LockClient::
// SetReleasePausePoint): a stall asked for at PausePoint::kReleaseInFlight,
// inside a release whose reply is in flight, recorded as the same two lone
// "pause" ops with "at": "release-in-flight".
InFlightPausePoint ReleaseInFlightStalls(WorkloadContext& ctx, OpLog& log, LockClient& client);

// What a release's completion records beyond its outcome: {"attempts": n}
// when the client sent it n > 1 times (a release in doubt retried), else
// null.
nlohmann::json ReleaseCompletionValue(const ReleaseResult& released);

}  // namespace locksmith
