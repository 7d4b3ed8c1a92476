// FaultDescriptions: what results.json tells the reports about a run's
// faults, so that they draw any family from the data alone: every family's
// look (FaultLook: lane, order, colour, client mark and op) and, for every
// fault window the history begins, its summary text, whether it hit
// anything and the client it hit. The harness writes it under
// "fault_descriptions" (harness/run.cc); `locksmith report` adds it for
// runs written before it existed. Pure; thread-safe.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "history/history.h"
#include "nemesis/fault_ledger.h"
#include "nemesis/fault_look.h"

namespace locksmith {

// Fault family name -> its look.
using FaultLooks = std::map<std::string, FaultLook>;

// Every registered family's look (NemesisFamilies()).
FaultLooks RegisteredFaultLooks();

// {"families": {name: FaultLookJson}, "windows": [{"index" (the begin op's
// history index), "window", "family", "text", "effective", "process"}]}.
// A window of a family `looks` lacks is left out (the reports then show
// its op's name). The begin op is told by its completion's value when it
// has one, else its invoke's, and its completion's error. A window whose
// family's confirmation (`confirmations`: the fault ledger's) says it
// stalled a lock holder also tells "past_lease", and when the stall
// outlived the holder's lease its text says so (", past its lease"), so an
// anomaly story that names the fault says it too.
nlohmann::json DescribeFaults(const History& history, const FaultLooks& looks,
                              const FaultConfirmations& confirmations = {});
// With every registered family's look and confirmation.
nlohmann::json DescribeFaults(const History& history);

}  // namespace locksmith
