// The Markdown tables docs/debate.md carries of a measured debate matrix
// (`locksmith debate --doc debate.json`): a sentence saying how they were
// measured, the grid (the debate's rows down, the locks across), a table of
// every scenario's figures, and the cells the harness cannot run with the
// reason. They live between two marker comments, so a command can replace
// them and a test can tell whether the doc and the stored debate.json still
// agree. Pure; thread-safe.
#pragma once

#include <string>

#include "base/result.h"
#include "reports/debate_matrix.h"

namespace locksmith {

inline constexpr const char* kDebateDocBegin =
    "<!-- debate-matrix: begin (made by locksmith debate --doc docs/debate.json; do not edit) -->";
inline constexpr const char* kDebateDocEnd = "<!-- debate-matrix: end -->";

// The tables, without the markers.
std::string DebateDocTables(const DebateMatrix& matrix);

// The text between `doc`'s markers; an error when they are missing, out of
// order or given twice.
Result<std::string> DebateDocBlock(const std::string& doc);

// `doc` with the text between its markers replaced by DebateDocTables.
Result<std::string> PatchDebateDoc(const std::string& doc, const DebateMatrix& matrix);

}  // namespace locksmith
