// Loads a history file in any format locksmith checks: Jepsen EDN, Jepsen
// `jepsen.util` log lines, or our own history.jsonl; the format is named or
// detected from the content. Errors read "FILE:LINE: reason" (or "FILE:
// reason" when no line applies). Stateless free functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "history/history.h"

namespace locksmith {

enum class HistoryFormat { kEdn, kJepsenLog, kJsonl };

// "edn", "jepsen-log" or "jsonl".
Result<HistoryFormat> ParseHistoryFormat(std::string_view name);
std::string_view HistoryFormatName(HistoryFormat format);

// nullopt when the text looks like none of the formats. Empty text is EDN
// (an empty history).
std::optional<HistoryFormat> DetectHistoryFormat(std::string_view text);

// `format` empty: detect. `source` names the text in error messages.
// `skipped` (when given) receives the lines a lenient read left out: a
// history.jsonl whose last line a crash cut short.
Result<History> ParseHistoryText(std::string_view text, const std::string& format,
                                 const std::string& source,
                                 std::vector<SkippedLine>* skipped = nullptr);
// ParseHistoryText of a file, or a run's history log (history/history_log.h)
// known by its magic whatever `format` says: a regular file of at most `max_bytes` (a FIFO
// or /dev/zero is refused at once; see base/input_file.h). The text and the
// ops parsed from it are both held in memory.
Result<History> LoadHistoryFile(const std::string& path, const std::string& format,
                                std::vector<SkippedLine>* skipped = nullptr,
                                uint64_t max_bytes = kDefaultMaxHistoryBytes);

// One line per skipped line for the user, naming it as "SOURCE:LINE:".
std::vector<std::string> DescribeSkippedLines(const std::string& source,
                                              const std::vector<SkippedLine>& skipped);

}  // namespace locksmith
