// The run's external lock clients: when --client names a program
// (exec:PROGRAM ARGS...), the ExecClients that build one per worker, told
// the run's facts at each handshake (the service's nodes and password, the
// workload, its lease and lock keys, --fencing, the client timeout) and
// reporting each misbehaviour to the run log, and their handshakes checked
// before the workload starts. Called on the run thread.
#pragma once

#include <memory>
#include <string>

#include "backends/exec_clients.h"
#include "backends/lock_service.h"
#include "base/result.h"
#include "cluster/host.h"
#include "harness/run_config.h"
#include "harness/run_log.h"
#include "workloads/workload.h"

namespace locksmith {

// The handshake's facts of the run (ExecServiceFacts and the workload's).
nlohmann::json ExecRunFacts(const RunConfig& config, const LockService& service);

// Null when the run's client is one of the backend's own; the programs'
// stderr goes to <run_dir>/clients/. Each of the run's clients gets a host
// of its own from `cluster` (Cluster::ClientHost) where the provider has
// one; an error when one cannot be made.
Result<std::unique_ptr<ExecClients>> MakeRunExecClients(const RunConfig& config,
                                                        const LockService& service,
                                                        Cluster& cluster,
                                                        const std::string& run_dir, RunLog& log);

// Every program's handshake, before the workload (ExecClients::Start), run
// on ctx.io until it ends (the programs it started stay on it, for the
// workload): an error naming the client and what it did (a program that
// cannot start, answers its hello wrongly, or lacks the fence --fencing on
// needs), with every program closed. An interrupt (ctx.ShouldStop) or a
// stop of the io_context ends the wait with an error too.
Status StartRunExecClients(ExecClients& clients, WorkloadContext& ctx);

}  // namespace locksmith
