// HolderStall: where a lock holder takes the stall the client-pause nemesis
// asked for (ClientPauses), recorded as a "pause" op of the holder's process
// -- shared by every workload that holds locks. Runs on the worker's
// coroutine; not thread-safe (ClientPauses is).
#pragma once

#include <string>

#include <boost/asio/awaitable.hpp>

#include "workloads/workload.h"

namespace locksmith {

class LockClient;
class OpLog;

// Inside a critical section on `key`: takes the stall asked for, if any
// (nothing when the run has no client-pause nemesis). The holder stops as a
// GC pause would stop it, then goes on as if it still held the lock; only
// the end of the run cuts the stall short.
boost::asio::awaitable<void> StallIfAsked(WorkloadContext& ctx, OpLog& log, LockClient& client,
                                          const std::string& key);

}  // namespace locksmith
