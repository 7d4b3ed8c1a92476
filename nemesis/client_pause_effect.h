// ClientPauseEffect: what a client pause did, read back from the history
// when the run is judged (the client-pause family's NemesisEntry::confirm,
// for the fault ledger). The pause's begin op says which worker took the
// stall ("process", "key", "ms"; "at": "in-flight" for a stall inside an
// acquire, "release-in-flight" inside a release) and the worker recorded the stall as its own "pause" op
// (ClientPauses::At, backends/client_pauses.h). Two separate facts:
//   took effect  the worker was in the state the pause aims at when its
//                stall began -- holding the key (its last acquire of it ok
//                and not released since), or with an acquire (a release)
//                of it in flight -- and its next op came at least the pause's "ms"
//                after the stall began. Whether the stall outlived the
//                lease does not matter: a pause within the lease is the
//                safe case a run may set out to show.
//   past lease   the stall ended after the hold's validity had: the latest
//                lease end its ok acquire, renewals and re-entries gave it
//                (LeaseEndOf), or its lock-lost notice (at the cut-off it
//                names) when that came first. In flight: after the lease
//                the interrupted acquire asked for ("lease_ms"), counted
//                from its invoke; a release's stall never is (the hold
//                ended at the release's invoke). A hold that records no lease and lost
//                nothing is never past it.
// Pure; thread-safe.
#pragma once

#include <cstddef>
#include <optional>

#include "history/history.h"
#include "nemesis/fault_ledger.h"

namespace locksmith {

// The facts of the client pause whose begin op completed at
// history[begin_done]; {took_effect: false} when the op failed (no worker
// took the stall) or the worker was not where the pause aims; nullopt when
// the history cannot tell (it holds no record of the stall, or ends before
// the worker's next op).
std::optional<FaultConfirmed> ClientPauseEffect(const History& history, size_t begin_done);

}  // namespace locksmith
