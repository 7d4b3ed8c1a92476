// OpRow: the report's view of an operation, one row per invoke with its
// completion; a completion without invoke (a Jepsen-style lone :info) is a
// zero-length row of its own. Every section of the report model is built
// from these rows, sorted by invoke time. Plain values; thread-safe to read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "history/history.h"
#include "reports/interner.h"
#include "reports/process_lanes.h"

namespace locksmith {

// Outcome of a row: how its invoke completed.
enum class OpOutcome : uint8_t { kOk = 0, kFail = 1, kInfo = 2, kPending = 3 };

struct OpRow {
  int64_t index = 0;             // the invoke's history index
  int64_t completion_index = -1;  // -1: never completed
  int64_t start = 0;
  int64_t duration = -1;         // -1: never completed
  int32_t lane = 0, f = 0, key = -1, error = -1;  // f, key, error: interned
  OpOutcome outcome = OpOutcome::kPending;
  size_t invoke_pos = 0;        // positions in the history vector
  int64_t completion_pos = -1;
};

// The names the rows' numbers stand for.
struct OpNameTables {
  Interner fs, keys, errors;
};

// The rows of `history`, sorted by start (stable).
std::vector<OpRow> BuildOpRows(const History& history, const ProcessLanes& lanes,
                               OpNameTables* names);

const Op& InvokeOf(const History& history, const OpRow& row);
// The row's completion; null when it never completed.
const Op* CompletionOf(const History& history, const OpRow& row);
// What the op carried: its completion's value when that has one, else the
// invoke's.
const nlohmann::json& ValueOf(const History& history, const OpRow& row);

}  // namespace locksmith
