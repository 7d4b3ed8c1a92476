// The linearizability check as the rest of locksmith calls it: the CLI's
// `locksmith check FILE --model NAME`, the run lifecycle's checker list and
// the HTML report all go through these functions, and every one of them ends
// in CheckLinearizable, so a history gets one verdict whichever way it is
// checked. Two rules live there, not in the callers:
// - the lease rule (checker/leased_lock_checker.h): in a history that
//   records leases (locksmith's own), a failed release is a lease that
//   expires later, not a lock held forever; LinearizabilityOptions::leases
//   forces it on or off;
// - nothing to judge (NothingToJudge, checker/checker.h): a history in which
//   no op the model checks both invoked and completed ok is unknown, never
//   valid.
// Models and their op names are listed in checker/model.h; the search in
// checker/linearizability_search.h.
// All functions are safe to call from any thread (no shared state).
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "base/limits.h"
#include "base/result.h"
#include "checker/checker.h"
#include "checker/leased_lock_checker.h"
#include "history/history.h"

namespace locksmith {

struct LinearizabilityOptions {
  // One of ModelNames() (checker/model.h).
  std::string model;
  // Initial value where the model has one (register, cas-register: default
  // nil; kv: every key starts as "" ; counter: 0; multi-register: a map).
  std::optional<nlohmann::json> initial;
  // "edn", "jepsen-log", "jsonl"; empty = detect from content.
  std::string format;
  double timeout_s = 10;
  // Where the time budget is read: the steady clock, or a test's own.
  std::chrono::steady_clock::time_point (*now)() = &std::chrono::steady_clock::now;
  size_t memory_limit_bytes = 2ull << 30;
  // The largest history file CheckHistoryFile reads (it holds the file and
  // its ops in memory).
  uint64_t max_history_bytes = kDefaultMaxHistoryBytes;
  // Whether a failed release is a lease that expires later (see
  // checker/leased_lock_checker.h); auto: when the history records leases.
  LeaseRule leases = LeaseRule::kAuto;
  // A key read one op at a time (CheckLinearizableKeyStream) is searched in
  // segments of at least this many ops, cut where the key is quiet: memory
  // follows a segment, not the key.
  size_t segment_ops = size_t{1} << 16;
  // Threads searching a history's partitions at once (0: one per core, at
  // most 4; see SearchPartitions).
  size_t search_threads = 0;
  // Search every partition even once one is refuted, so that each refuted
  // key gets its anomaly; by default the verdict is given at the first
  // refuted partition and the others are reported as not searched.
  bool all_anomalies = false;
};

// Checks the options without loading anything: model name, initial value,
// format name, timeout and memory limit. One clear line on error.
Status ValidateLinearizabilityOptions(const LinearizabilityOptions& options);

// Validates the options (unknown model or bad initial value: an Error with
// one clear line), loads the file (malformed input: "FILE:LINE: reason") and
// runs the check. A last line cut short by a crash is skipped and said so:
// stats "skipped_lines" and one line in `warnings`.
Result<CheckResult> CheckHistoryFile(const std::string& path,
                                     const LinearizabilityOptions& options);

// The same for an in-memory history. The result is kTrue, kFalse (anomalies:
// one "nonlinearizable" object per failing partition: "key", "op" (the op
// that could not be linearized), "prefix" (the longest linearizable prefix,
// last 100 op refs, with "prefix_length"), "state" after it, "message", and
// "proof": "window" with "window" bounds when a stretch of the history was
// shown impossible on its own) or kUnknown with the reason (time or memory
// budget, or nothing to judge). Stats: model, ops, pending_ops, failed_ops,
// partitions, partitions_not_searched and keys_not_searched (stopped once
// another partition was refuted; the first 100 keys), segments (the
// searches the partitions took: one each here;
// a key read one op at a time may take several, see
// CheckLinearizableKeyStream), states_explored, distinct_keys, time_s, peak_memory_bytes,
// ignored_ops, and "leases": {"rule", "applied", "failed_releases"} (failed
// releases in the history: rewritten as `info` when applied).
Result<CheckResult> CheckLinearizable(const History& history,
                                      const LinearizabilityOptions& options);

// Multi-line verdict for the terminal: text from the history (keys, values,
// errors) has its control characters escaped (base/terminal_text.h).
std::string FormatLinearizabilityVerdict(const CheckResult& result);

// A Checker for the run lifecycle, e.g. {.model = "owner-mutex"}. Invalid
// options surface as an unknown verdict carrying the reason.
std::unique_ptr<Checker> MakeLinearizabilityChecker(const LinearizabilityOptions& options);

}  // namespace locksmith
