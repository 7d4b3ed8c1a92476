// AcquireUnlessCrashed: an exclusive acquire at which the client-crash
// nemesis may make the worker vanish (ClientCrashes) -- shared by every
// workload that takes locks. A client with a crash point of its own
// (LockClient::SetCrashPoint: redis-setnx-expire between SETNX and PEXPIRE)
// dies there; any other dies once its acquire request was sent and answered
// ok or unknown (the request took effect or may have: a crash after a
// refused acquire would change nothing on the servers), the answer never
// read. Either way the connection is dropped and the caller must stop for
// good, recording nothing more: the acquire's invoke stays open (info at the
// end). Runs on the worker's coroutine; not thread-safe (ClientCrashes is).
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
    WorkloadContext& ctx, const OpLog& log, LockClient& client, const std::string& key,
    std::chrono::milliseconds lease);

}  // namespace locksmith
