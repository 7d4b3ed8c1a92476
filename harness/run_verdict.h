// RunVerdict: the rules that keep a run's verdict honest about what the run
// did, applied after its checkers. A run cut short by a signal, or one in
// which a fault it asked for never took effect (a family of --nemesis none
// of whose faults was observed, a scripted step that never fired, failed or
// was never confirmed: FaultLedger::Unfulfilled), proves nothing by finding
// nothing: its verdict (valid, or unknown already) becomes unknown, with one
// line saying what did not happen. An anomaly it found still stands: invalid
// stays invalid. Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "checker/checker.h"
#include "history/history.h"
#include "nemesis/fault_ledger.h"

namespace locksmith {

// The line that keeps the run from a verdict of valid, "" when nothing
// does: the interruption first (it explains the faults that never came),
// e.g. "interrupted by SIGINT after 4.2 s of the 120 s workload, 2 of 11
// planned faults ran", then what the ledger says did not happen.
// `interruption`: results.json's "interruption" (null when the run was not
// cut short); `ledger` may be null (a run with no faults recorded).
std::string UnfulfilledRunLine(const nlohmann::json& interruption, double time_limit_s,
                               const FaultLedger* ledger);

// The line that keeps a run's history from a verdict of valid because of
// how it ended, "" when it closed at its time limit: cut short (no closing
// record, or one whose counts are not what was read: HistoryEnd::CutShort,
// naming `source`), hung (the watchdog's line), ended in an error, or
// interrupted (only when `interruption_known` is false: results.json's
// interruption already says so, in more words).
std::string HistoryEndLine(const HistoryEnd& end, const std::string& source,
                           bool interruption_known);

// Makes a valid or unknown verdict unknown because of `line` (its reason
// first); an invalid one, or an empty line, changes nothing. Returns whether
// it applied.
bool ApplyUnfulfilled(CheckResult& result, const std::string& line);

// The fault ledger the run planned (`extra`'s "faults", as results.json
// keeps it), its outcomes filled in from the history into `ledger`; returns
// the ledger as results.json shows it, null when the run recorded none (and
// a "faults" that is not a ledger as it was, leaving `ledger` empty).
nlohmann::json LedgerOf(const History& history, const nlohmann::json& extra,
                        std::optional<FaultLedger>& ledger);

}  // namespace locksmith
