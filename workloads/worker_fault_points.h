// Worker fault points: how a worker passes the points where the run's
// client-side fault families may act on it (ClientFaults, backends/
// client_faults.h) -- shared by every workload that holds locks. The worker
// lends itself (its process's op log, its client, its sleeps that end with
// the run) to the families at each point; the points inside its client's
// own calls (LockClient::SetFaultPointHook) ask them too.
// Runs on the worker's coroutine; not thread-safe (ClientFaults is).
#pragma once

#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "backends/client_faults.h"
#include "backends/lock_client.h"
#include "workloads/workload.h"

namespace locksmith {

class OpLog;

// Passes `point` on `key`: every family acts there if asked to (nothing
// when the run has no client-side family). At the holder points
// (kCriticalSection, kBeforeRelease) a family's stall holds the worker up as
// a GC pause would, and it goes on as if it still held the lock.
boost::asio::awaitable<ClientFaultEffect> PassFaultPoint(WorkloadContext& ctx, OpLog& log,
                                                         LockClient& client, ClientFaultPoint point,
                                                         const std::string& key);

// Gives a worker's client the hook through which it passes the points
// inside its own calls (LockClient::SetFaultPointHook: Redlock's
// kAcquireInFlight, kReleaseInFlight, redis-setnx-expire's
// kAcquireAnswered). `ctx`, `log` and `client` must outlive the client's
// calls.
void GiveClientItsFaultPoints(WorkloadContext& ctx, OpLog& log, LockClient& client);

// What a release's completion records beyond its outcome: {"attempts": n}
// when the client sent it n > 1 times (a release in doubt retried), else
// null.
nlohmann::json ReleaseCompletionValue(const ReleaseResult& released);

}  // namespace locksmith
