// The report's table of the fault ledger (results.json's "faults", written
// by the run: nemesis/fault_ledger.h): per fault family how many faults
// were planned, fired, applied, healed and observed (and, for a family
// that stalls lock holders, how many stalls outlived the lease), then, for a scripted
// run, every step and what became of it, and the line saying what the run
// asked for and did not get. Drawn from the data alone: nothing here knows
// a family by name. Pure; thread-safe.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace locksmith {

// The HTML (tables and a line); "" when `faults` is not a ledger or holds
// no family and no step.
std::string FaultLedgerHtml(const nlohmann::json& faults);

}  // namespace locksmith
