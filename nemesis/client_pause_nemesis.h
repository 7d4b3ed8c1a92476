// ClientPauseNemesis: "client-pause" makes a client that holds a lock stall
// inside its critical section for `ms` (a GC pause, the core of the Redlock
// critique), then go on as if it still held the lock; "client-resume" ends
// the window (a stall in progress runs its course, as a real pause would).
// The begin op waits, up to its `wait_ms` (default 5000), for a holder to
// take the stall ("key" and "process" in its value narrow who may) and
// returns who did ({"process", "key", "ms"}); with no
// holder in that time the op fails and nothing stalls. The workload records
// the stall itself as a "pause" op of the holder (backends/client_pauses.h).
// With "at": "in-flight" (--client-pause-at) the stall hits instead a client
// inside an acquire whose replies granted the lock, before it judges them
// (its own kAcquireInFlight point: the redlock client), optionally with
// "clock_delta_ms": that client's wall clock steps by it during the stall;
// the op's value then also says "at" (and "clock_delta_ms").
// Used from the nemesis thread; Teardown from the run thread afterwards.
#pragma once

#include <optional>
#include <string>

#include "backends/client_pauses.h"
#include "base/option_set.h"
#include "history/fault_names.h"
#include "history/history.h"
#include "nemesis/nemesis.h"
#include "nemesis/nemesis_registry.h"
#include "nemesis/schedule.h"

namespace locksmith {

// The client-pause family's options.
struct ClientPauseOptions {
  int64_t ms = 2000;  // how long the holder stalls (past its lease: a double holder)
  std::string key;    // only a holder of this key; empty: any holder
  std::string at = "holder";  // where the stall hits: holder | in-flight

  void Declare(OptionSet& set);
};

// A stall asked for at the start; the window ends when the stall has.
WindowOps ClientPauseWindow(const ClientPauseOptions& options);

// The registry's hooks (any backend: the stall happens in the client).
Result<std::unique_ptr<Nemesis>> MakeClientPauseNemesis(const ModuleOptions& options,
                                                        const NemesisContext& context);
WindowOps ClientPauseWindowOf(const ModuleOptions& options);
// How the reports show a client pause (nemesis/fault_look.h): who stalled
// holding what, for how long; the stalled holder's lane is shaded for the
// window and its "pause" op drawn as the nemesis's.
extern const FaultLook kClientPauseLook;

class ClientPauseNemesis : public Nemesis {
 public:
  explicit ClientPauseNemesis(ClientPauses& pauses) : pauses_(pauses) {}

  std::vector<std::string> Faults() const override { return {kClientPause, kClientResume}; }
  FaultResult Invoke(const FaultOp& op) override;
  // Drops a stall no holder took yet; one in progress ends by itself.
  std::vector<HealFailure> Teardown() override;

 private:
  ClientPauses& pauses_;
};

}  // namespace locksmith
