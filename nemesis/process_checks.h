// Checks from outside that a fault done to a server process took effect,
// through the host the process runs on (a command run there, so they work
// on every provider): the state the kernel gives the process, read from
// /proc/<pid>/stat ('T': stopped by a signal, as a SIGSTOPped server is).
// The node fault families (kill, pause) use them to fill their ops'
// "observed" (nemesis/fault_ledger.h). Free functions; thread-safe as the
// Host is.
#pragma once

#include <chrono>

#include "base/result.h"
#include "cluster/host.h"

namespace locksmith {

// The state letter of process `pid` on `host` (R, S, D, T, Z, ...); an error
// when it cannot be read (no such process, the command failed).
Result<char> ProcessStateOn(Host& host, int pid);

// Reads the state until it is `want` or `within` has passed (a signal takes
// effect when the process is next scheduled): the last state read.
Result<char> AwaitProcessState(Host& host, int pid, char want, std::chrono::milliseconds within,
                               std::chrono::milliseconds poll = std::chrono::milliseconds(20));

}  // namespace locksmith
