// `locksmith debate`: every scenario of the library (harness/scenario_library.h)
// run K times as one suite named "debate" (harness/suite_file.h: its
// "scenarios" list, so it shards with --shard and merges with `locksmith
// merge` like any suite), then the debate matrix (reports/debate_matrix.h)
// written beside the suite's index: debate.html and debate.json. The matrix
// is also made again from a suite directory (`--from DIR`, a merged one
// included), and docs/debate.md's tables from a stored debate.json (`--doc`).
// Main thread only.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "base/result.h"
#include "harness/shard_plan.h"
#include "harness/suite_file.h"
#include "reports/debate_matrix.h"
#include "reports/suite_report.h"

namespace locksmith {

class SignalWatcher;

inline constexpr int kDefaultDebateRepeats = 20;

struct DebateOptions {
  int repeats = kDefaultDebateRepeats;
  std::optional<uint64_t> seed;
  std::optional<double> time_scale;
  std::optional<std::string> store;
  std::optional<ShardSpec> shard;
  std::vector<std::string> only;  // scenario names; empty: the whole library
  std::string matrix_file;        // empty: DebateShapeFile()
};

// The library's scenarios/debate/matrix.json: the matrix's rows, columns and
// the cells that cannot run.
std::string DebateShapeFile();
Result<DebateShape> LoadDebateShape(const std::string& path);

// The library (or `options.only`) as the suite "debate": each scenario a
// cell run options.repeats times. Its digest covers every scenario file's
// content, so shards of different libraries are not merged.
Result<Suite> DebateSuite(const DebateOptions& options);

// The matrix of a suite directory's runs (`record`, its summary, and each
// run's config.json and results.json under `dir`); `command` is what made it.
Result<DebateMatrix> DebateMatrixOfSuite(const SuiteRecord& record, const std::string& dir,
                                         const DebateShape& shape, const std::string& command);

// Writes DIR/debate.json and DIR/debate.html.
Status WriteDebateFiles(const DebateMatrix& matrix, const std::string& dir);

// The exit code of a matrix: 0 every entry agrees (or predicts nothing), 1
// one disagrees, 2 none does but one is undecided.
int DebateExitCode(const DebateMatrix& matrix);

// `locksmith debate`: runs the suite, writes the matrix, prints each entry.
int RunDebate(const DebateOptions& options, SignalWatcher& signals, std::ostream& out,
              std::ostream& err);
// `locksmith debate --from DIR`: the matrix of a suite directory written again.
int RunDebateFrom(const std::string& dir, const std::string& matrix_file, std::ostream& out,
                  std::ostream& err);
// `locksmith debate --doc JSON [--patch MD]`: docs/debate.md's tables from a
// stored debate.json, printed, or put between MD's markers.
int RunDebateDoc(const std::string& json_path, const std::string& patch_path, std::ostream& out,
                 std::ostream& err);

}  // namespace locksmith
