// DebateMatrix: what `locksmith debate` found, as data: the debate's rows
// down (the "scenario" field of each scenario file), the locks across
// (docs/debate.md's columns: SR, RF, R5, ZK, ET, DB, LT, FT, and a client
// variant where a scenario names another client than its backend's
// default), and in each box every scenario that lands there with its
// prediction, its k of K runs invalid with their Wilson 95% interval,
// whether the runs agree with the prediction, the median time to the first
// violation, and each invalid run's report, seed and replay command. A box
// no scenario fills but the shape names as one the harness cannot run says
// so, with the reason. The shape (rows, columns, cells that cannot run) is
// data: scenarios/debate/matrix.json. Built from a suite's runs; written as
// debate.json and read back from it (docs/debate.md's tables are made from
// that file). Pure; not thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "reports/suite_report.h"

namespace locksmith {

// One row of the debate (docs/debate.md's "The rows").
struct DebateRow {
  std::string id;    // "1", "validity", "baseline"
  std::string what;  // what happens, in a few words
};

// One lock across the top: the scenarios whose backend is among `backends`
// (all when empty) and whose client is among `clients` (any when empty),
// and with fencing on only when `fenced`. The first column that fits takes
// a scenario; a fenced scenario fits only a fenced column.
struct DebateColumn {
  std::string id;    // "SR"
  std::string what;  // "single Redis"
  std::vector<std::string> backends;
  std::vector<std::string> clients;
  bool fenced = false;
};

// A box the harness cannot run, with what the debate predicts there and
// why no run can show it.
struct CannotRunCell {
  std::string row;
  std::string column;
  std::string predicted;  // "valid" or "invalid"
  std::string reason;
};

struct DebateShape {
  std::vector<DebateRow> rows;
  std::vector<DebateColumn> columns;
  std::vector<CannotRunCell> cannot_run;
};

// The shape from scenarios/debate/matrix.json's JSON: every field's type
// checked, column ids distinct, and each cannot-run cell naming a row and a
// column the shape has; errors are one line naming the place.
Result<DebateShape> DebateShapeFromJson(const nlohmann::json& j);

// What one scenario of the library is, as its runs' config says.
struct DebateScenarioFacts {
  std::string name;
  std::string row;               // its "scenario" field; empty for none
  std::string backend;
  std::string client;            // the lock client its runs used ("redis", "node-redlock")
  bool default_client = true;    // the backend's default client
  bool fenced = false;
  std::string predicted_verdict;  // "valid", "invalid" or "" (none)
  std::string predicted_anomaly;  // the kind an invalid run must show; may be empty
  double run_length_s = 0;        // the time limit its runs ran with
};

// One run of a scenario: its suite row, the anomaly kinds (classes and
// types) its results named, and how to see it again.
struct DebateRunFacts {
  SuiteRun run;
  std::set<std::string> anomaly_kinds;
  std::string report;  // its report.html, relative to the suite's directory; empty for none
  std::string replay;  // the command line that replays it
};

struct DebateScenarioRuns {
  DebateScenarioFacts facts;
  int planned = 0;  // runs the suite planned for it (K)
  std::vector<DebateRunFacts> runs;
};

// The column a scenario falls in: a shape column's id, with its client
// variant after a space ("R5 node-redlock"); "?" when no column fits.
std::string DebateColumnOf(const DebateShape& shape, const DebateScenarioFacts& facts);

// An invalid run, as a box lists it.
struct DebateInvalidRun {
  int repeat = 0;
  uint64_t seed = 0;
  std::string report;
  std::string replay;
  std::optional<double> first_violation_s;
  bool predicted_kind = false;  // its anomalies include the predicted kind
};

// One scenario's figures in its box.
struct DebateEntry {
  std::string scenario;
  std::string row;
  std::string column;
  std::string predicted_verdict;
  std::string predicted_anomaly;
  double run_length_s = 0;
  int planned = 0;          // K
  int runs = 0;             // runs that ran
  int judged = 0;           // of those, judged valid or invalid
  int invalid = 0;          // k
  int invalid_predicted_kind = 0;  // of those, showing the predicted anomaly kind
  Interval wilson;          // of invalid among judged
  // "agrees", "disagrees", "undecided" (no run judged could decide it) or
  // "no prediction". An invalid prediction agrees once a run shows the
  // predicted kind (two holders can happen: one run proves it) and
  // disagrees when every run was judged and none did; a valid one agrees
  // when every run was judged valid and disagrees at the first invalid run.
  std::string agreement;
  std::optional<double> median_first_violation_s;
  std::vector<DebateInvalidRun> invalid_runs;
};

// The cannot-run cells, the entries, and what they were measured with.
struct DebateMatrix {
  DebateShape shape;
  std::vector<DebateEntry> entries;  // rows in the shape's order, then columns'
  std::vector<std::string> columns;  // every column shown, variants after their column
  std::vector<std::string> rows;     // every row shown, the shape's first
  int repeats = 0;                   // K planned per scenario
  std::optional<double> time_scale;  // when known
  uint64_t seed = 0;                 // the suite's
  std::string suite_dir;             // where the runs are
  std::string command;               // what made it
};

// The agreement of runs with a prediction (see DebateEntry::agreement).
std::string DebateAgreement(const std::string& predicted_verdict, int runs, int judged,
                            int invalid, int invalid_predicted_kind);

// The entries of `scenarios` on `shape`, each with its figures.
DebateMatrix BuildDebateMatrix(const DebateShape& shape,
                               const std::vector<DebateScenarioRuns>& scenarios);

// debate.json: the shape's rows and columns, the cannot-run cells and every
// entry; DebateMatrixFromJson reads it back (the shape's column rules
// aside: an entry already knows its column), every field checked.
nlohmann::json DebateMatrixJson(const DebateMatrix& matrix);
Result<DebateMatrix> DebateMatrixFromJson(const nlohmann::json& j);

// "Y" for a predicted invalid verdict, "N" for valid, "–" for none: the
// debate's letters.
std::string DebateLetter(const std::string& predicted_verdict);
// "2 of 3 invalid [21–94%]" (the Wilson 95% interval over the runs judged),
// with "; 1 not judged" when runs were not.
std::string DebateObservedText(const DebateEntry& e);

}  // namespace locksmith
