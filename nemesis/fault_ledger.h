// FaultLedger: what became of every fault a run planned, so that a fault
// that never happened cannot make a run look valid. Each planned fault is a
// row: a window of the seeded schedule (its begin op and its end op), or one
// scripted step. A row says whether it
//   fired     its op was performed (an event step whose event never came
//             never fires);
//   applied   its op completed without an error;
//   healed    its window's end op completed without an error (a window
//             with no end op planned: the teardown healed everything);
//   observed  a check from outside saw its window's fault take effect: an
//             op of the window says "observed": true and none says false
//             (FaultResult::observed), or the family confirms it from the
//             history (NemesisEntry::confirm, e.g. a client pause whose
//             worker was stalled holding its lock for the whole pause).
// An observed fault that stalls a lock holder also says whether the stall
// outlived the holder's lease ("past lease"): a separate fact, since a
// stall within the lease took effect all the same (it is the safe case a
// run may set out to show).
// Per family the same counts, summed over its rows.
//
// The run writes the plan (Plan) when its workload starts; the judge fills
// in the outcomes from the history (Observe), so `locksmith check` on a
// stored run recomputes them from results.json's "faults" and the history
// alone. Unfulfilled() names, in one line, what the run asked for and did
// not get. Plain value; not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "history/history.h"
#include "nemesis/schedule.h"

namespace locksmith {

// What a family's check of one of its faults read from the history.
struct FaultConfirmed {
  bool took_effect = false;
  // A fault that stalls a lock holder: whether the stall outlived the
  // holder's lease; nullopt for a fault that stalls no holder.
  std::optional<bool> past_lease;

  bool operator==(const FaultConfirmed&) const = default;
};

// A family's confirmation of one of its faults from the history, given the
// index of the completion of the fault's begin op, or nullopt when the
// history cannot tell.
using FaultConfirmation =
    std::function<std::optional<FaultConfirmed>(const History& history, size_t begin_done)>;
// By family name; a family without one is confirmed by its ops' "observed".
using FaultConfirmations = std::map<std::string, FaultConfirmation>;

// One planned fault and what became of it.
struct LedgerRow {
  int step = 0;  // the scripted step (1-based); 0: a window of the seeded schedule
  std::string family;
  int64_t window = 0;
  bool begins = true;  // the step begins its window (a window row always does)
  std::string f;       // its op (a window row: the begin op)
  // As planned, in its family's words (FaultLook::describe) and when:
  // "kill n1 after acquire of no-such-key".
  std::string what;
  int64_t at_ms = 0;   // since the workload started, or after its event

  bool fired = false;
  bool applied = false;
  bool healed = false;
  bool observed = false;
  // An observed fault that stalled a holder: whether the stall outlived its
  // lease (FaultConfirmed::past_lease); nullopt otherwise.
  std::optional<bool> past_lease;
  std::string done;   // what it did, in its family's words ("kill n3"); empty when it never ran
  double at_s = -1;   // when its op completed, in s of the workload; -1: never
  std::string error;  // why it was not applied

  bool operator==(const LedgerRow&) const = default;
};

// A family's rows, counted.
struct LedgerTotals {
  std::string family;
  int planned = 0;
  int fired = 0;
  int applied = 0;
  int healed = 0;
  int observed = 0;
  // Of the observed ones, how many stalls outlived their lease; nullopt
  // when none of the family's observed faults stalls a holder.
  std::optional<int> past_lease;

  bool operator==(const LedgerTotals&) const = default;
};

// What the run asked for, besides its schedule.
struct LedgerRequest {
  // The families it named (--nemesis, after `all` left out the unfit
  // ones); a scripted run: its steps' families.
  std::vector<std::string> families;
  double time_limit_s = 0;
  double interval_s = 0;  // the seeded schedule's; 0 for steps
};

class FaultLedger {
 public:
  // The plan: one row per scripted step when the schedule has steps, else
  // one per window. Nothing fired yet.
  static FaultLedger Plan(const std::vector<ScheduledFault>& schedule,
                          const LedgerRequest& request);
  // A ledger as ToJson wrote it (its plan; Observe recomputes the rest).
  static Result<FaultLedger> FromJson(const nlohmann::json& j);

  // Fills in every row's outcome from the nemesis ops of `history`
  // (replacing what was there). `teardown_healed`: the nemesis teardown
  // left nothing in place (it heals windows that plan no end op).
  void Observe(const History& history, const FaultConfirmations& confirmations,
               bool teardown_healed);

  const std::vector<LedgerRow>& rows() const { return rows_; }
  bool scripted() const { return scripted_; }
  // Per family, the requested ones first (a family that planned nothing
  // has a row of zeros), then any other in order of first use.
  std::vector<LedgerTotals> Totals() const;
  // The first thing the run asked for that did not happen, in one line
  // ("step 1 (kill n1 after acquire of no-such-key) never fired", "nemesis
  // kill: none of its 3 faults was observed"), with how many more there
  // are; "" when everything happened.
  std::string Unfulfilled() const;
  // "2 of 5 planned faults ran" (for a run cut short); "" when none was
  // planned.
  std::string Progress() const;

  // {"planned_by": "steps" | "schedule", "requested", "time_limit_s",
  // "interval_s", "families": [LedgerTotals], "rows": [LedgerRow],
  // "unfulfilled" (when not "")}; "past_lease" in a family and a row only
  // when it has one.
  nlohmann::json ToJson() const;

 private:
  std::vector<std::string> Problems() const;

  bool scripted_ = false;
  LedgerRequest request_;
  std::vector<LedgerRow> rows_;
};

}  // namespace locksmith
