// AcquireUnlessCrashed: an exclusive acquire through its fault points
// (workloads/worker_fault_points.h: kBeforeAcquire, then kAcquireAnswered
// once it was answered ok or unknown), at which a client-side family (the
// client-crash nemesis's, ClientCrashes) may make the worker vanish --
// shared by every workload that takes locks. A client that passes
// kAcquireAnswered itself (LockClient::OwnFaultPoints: redis-setnx-expire
// between SETNX and PEXPIRE) dies there, through the hook its worker gave it
// (GiveClientItsFaultPoints, which must come first); the worker passes it
// for any other once its acquire request was sent and answered ok or
// unknown (the request took effect or may have: a crash after a refused
// acquire would change nothing on the servers), the answer never read, and
// crashes the client (LockClient::Crash). Either way the connection is
// dropped and the caller must stop for good, recording nothing more: the
// acquire's invoke stays open (info at the end). Runs on the worker's
// coroutine; not thread-safe (ClientFaults is).
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include <boost/asio/awaitable.hpp>

#include "backends/lock_client.h"
#include "workloads/workload.h"

namespace locksmith {

class OpLog;

// The acquire's result, or nothing when the worker crashed in it.
boost::asio::awaitable<std::optional<AcquireResult>> AcquireUnlessCrashed(
    WorkloadContext& ctx, OpLog& log, LockClient& client, const std::string& key,
    std::chrono::milliseconds lease);

}  // namespace locksmith
