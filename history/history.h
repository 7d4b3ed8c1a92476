// The history of a run: every operation as an invoke plus its completion
// (ok | fail | info), in the JSON Lines format of docs/history-format.md: the
// type every layer that records or reads ops shares. Op and History are plain values (not
// thread-safe); the streaming writer lives in harness/history_recorder.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/limits.h"
#include "base/result.h"

namespace locksmith {

enum class OpType { kInvoke, kOk, kFail, kInfo };

std::string_view OpTypeName(OpType type);
Result<OpType> ParseOpType(std::string_view name);

// Process number of the nemesis; client processes are >= 0.
inline constexpr int64_t kNemesisProcess = -1;
// Process number of the events a lock service reports of its own accord (a
// leader change, a node seen down: the kinds its backend declares, see
// HasEvents in backends/lock_service.h): info ops only, "service" in the
// history file.
inline constexpr int64_t kServiceProcess = -2;

// Where a nemesis op stands in a fault window: the run records each fault's
// window explicitly (history key "fault": {"window": 3, "family": "kill",
// "phase": "begin"}), so readers never infer windows from op names. Every
// window a run begins, it ends (the heal phase ends what the schedule had
// not), unless the run was cut short by SIGKILL.
struct FaultMark {
  int64_t window = 0;  // one number per fault the run started, from 0
  std::string family;  // the nemesis family, e.g. "kill"
  bool begins = true;  // false: the op ends (heals) the window

  nlohmann::json ToJson() const;
  bool operator==(const FaultMark&) const = default;
};
// The mark in `j` (an op's "fault"), or an error naming the bad field.
Result<FaultMark> FaultMarkFromJson(const nlohmann::json& j);

struct Op {
  int64_t index = 0;
  int64_t time = 0;  // ns since run start, controller's monotonic clock
  int64_t process = 0;  // kNemesisProcess for the nemesis
  OpType type = OpType::kInvoke;
  std::string f;
  std::string key;  // empty when the op has no key
  nlohmann::json value;  // null when absent
  std::string error;  // why a fail/info ended so; empty when none
  // FaultMark::ToJson() on a nemesis op that begins or ends a fault window;
  // null otherwise (JSON rather than FaultMark keeps client ops small).
  nlohmann::json fault;

  bool is_nemesis() const { return process == kNemesisProcess; }
  bool is_service_event() const { return process == kServiceProcess; }
  bool is_client() const { return process >= 0; }
};

using History = std::vector<Op>;

// A process as a history file names it: its number, "nemesis" or "service".
nlohmann::json ProcessJson(int64_t process);

// One history line (no trailing newline) and back.
std::string OpToJsonLine(const Op& op);
nlohmann::json OpToJson(const Op& op);
Result<Op> OpFromJson(const nlohmann::json& j);
Result<Op> ParseOpLine(std::string_view line);

// A line a lenient read left out: a final line without a newline that does
// not parse, as a crash cuts a write short (or a history log's last record).
struct SkippedLine {
  int64_t line = 0;  // 1-based line number
  std::string reason;  // why it does not parse
  // A history log's torn last record (`line` is then the record's number)
  // rather than a text line.
  bool record = false;
  bool operator==(const SkippedLine&) const = default;
};

// How a run's history says it ended: the closing record a run writes last
// (history.bin's, and the closing line `export` writes after a run's JSON
// lines; docs/history-format.md). A history without one was cut short.
struct HistoryClosing {
  // How the workload ended: kEndedTimeLimit, kEndedInterrupted, kEndedHung,
  // kEndedError, or (written only by `export` of a log that had none)
  // kEndedCutShort.
  std::string ended;
  std::string detail;  // the signal, what hung, the error; empty for the time limit
  int64_t ops = 0;     // the ops written before it
  int64_t faults = 0;  // the fault windows those ops begin

  nlohmann::json ToJson() const;
  bool operator==(const HistoryClosing&) const = default;
};
inline constexpr char kEndedTimeLimit[] = "time-limit";
inline constexpr char kEndedInterrupted[] = "interrupted";
inline constexpr char kEndedHung[] = "hung";
inline constexpr char kEndedError[] = "error";
inline constexpr char kEndedCutShort[] = "cut-short";
// The closing record in `j` (its "closing" object), or an error naming the
// bad field.
Result<HistoryClosing> HistoryClosingFromJson(const nlohmann::json& j);

// Whether an op begins a fault window (what a closing record's faults count).
bool BeginsFaultWindow(const Op& op);

// What a reader found at a history's end, once it has read every op: the
// closing record, if one came, and what was read before it.
struct HistoryEnd {
  std::optional<HistoryClosing> closing;
  int64_t ops = 0;     // ops read
  int64_t faults = 0;  // fault windows those ops begin
  int64_t records = 0;       // records (or lines) read whole
  uint64_t whole_bytes = 0;  // where the last whole record ends

  // "" when the history is whole: a closing record came last and its counts
  // are what was read. Otherwise one line saying it was cut short and where,
  // naming `source`.
  std::string CutShort(const std::string& source) const;
};

// One line of a history.jsonl: an op into `*op`, or the closing line
// (`{"closing": {...}}`, what `export` writes after a run's ops) into
// `*closing`, `*op` untouched.
Status ParseHistoryLine(std::string_view line, Op* op, std::optional<HistoryClosing>* closing);
// The closing line of `closing` (no trailing newline).
std::string ClosingLine(const HistoryClosing& closing);

// What a history too large to read says to do about it.
inline constexpr std::string_view kRaiseHistoryLimit = "--max-history-mb raises the limit";

// Reads a history.jsonl: a regular file of at most `max_bytes` (see
// base/input_file.h). Blank lines are skipped; a malformed line is an
// error naming its line number. A final line without a newline that does not
// parse is treated as a write cut short by a crash and dropped when
// `allow_truncated_tail` is set; it is then appended to `skipped` (when
// given), so callers can say so.
Result<History> ReadHistoryJsonl(const std::string& path,
                                 bool allow_truncated_tail = true,
                                 std::vector<SkippedLine>* skipped = nullptr,
                                 uint64_t max_bytes = kDefaultMaxHistoryBytes);
Result<History> ParseHistoryJsonl(std::string_view text,
                                  bool allow_truncated_tail = true,
                                  std::vector<SkippedLine>* skipped = nullptr);

// Pairs every invoke with its completion: completion_of[i] is the index (into
// the history vector, not Op::index) of the op completing history[i], or -1
// when history[i] is a completion or has none. A completion pairs with the
// open invoke of its process when both have the same f; any other
// completion is a lone op (a Jepsen-style lone :info, or a lock event a
// client reported while holding a lock: see history/lock_ops.h). The
// nemesis's ops that carry a fault mark pair by the mark (window and phase)
// instead: its lanes run side by side (nemesis/nemesis_runner.h), so one
// fault's invoke may be followed by another's.
std::vector<int64_t> PairCompletions(const History& history);

}  // namespace locksmith
