// The `redlock` backend: N independent password-protected Redis masters
// (--masters, odd, default 5), one per host n1..nN, no replication, each
// with the redis backend's persistence option; a RedisService with every
// node a primary, so it is Killable, Pausable and HasClocks exactly as the
// redis backend is (kill, pause, client-pause and clock faults work on it
// unchanged, each target resolved over the masters). Its lock client is
// RedlockClient over every master (backends/redlock_client.h), tuned by the
// --redlock-* options below. Thread-safe (the service is RedisService).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "backends/backend_registry.h"
#include "backends/lock_service.h"
#include "base/option_set.h"

namespace locksmith {

struct RedlockOptions {
  int masters = 5;
  std::string persistence = "none";  // as the redis backend's
  int64_t node_timeout_ms = 50;      // per-master SET timeout
  bool no_drift = false;
  bool sequential = false;
  bool wall_clock = false;

  void Declare(OptionSet& set);
};

// Hosts the backend needs: one per master.
int RedlockHosts(const ModuleOptions& options);

// The `redlock` backend from its options (OptionsOf<RedlockOptions>): one
// password (drawn from the context's seed) shared by every master.
Result<std::unique_ptr<LockService>> MakeRedlockService(const ModuleOptions& options,
                                                        const BackendContext& context);

}  // namespace locksmith
