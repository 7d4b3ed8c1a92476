// `locksmith export RUN_DIR|FILE [-o OUT] [--format jsonl]`: a history as
// JSON Lines (docs/history-format.md), the interchange format, from a run's
// history log or any history `check FILE` reads. Ops are written one at a
// time from a stream when the input is a log or JSON lines, so a run of any
// length exports in memory that does not follow its length. Stateless;
// thread-safe.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

namespace locksmith {

struct ExportOptions {
  std::string input;        // a run directory or a history file
  std::string output;       // a file (written whole, then renamed); "" or "-": `out`
  std::string format = "jsonl";
  uint64_t max_history_bytes = 0;  // for formats read whole (EDN, Jepsen logs)
};

// Writes the history; returns the exit code (0, or kExitBadInput after one
// line on `err` when the input is missing, not a history, or damaged inside,
// or the output cannot be written). A torn last record is left out and said
// on `err`, as `check` says it.
int ExportHistory(const ExportOptions& options, std::ostream& out, std::ostream& err);

}  // namespace locksmith
