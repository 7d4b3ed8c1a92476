// Shared checks for the fuzz targets, single-threaded as libFuzzer calls
// them: whatever the input, a parser returns a value or an error of one line
// (never a crash, never an exception), and every parsed op can be written
// back as a history line (values are valid JSON, UTF-8 included).
#pragma once

#include <cstdlib>
#include <string>

#include "base/result.h"
#include "history/history.h"

namespace locksmith {

// An error locksmith prints for bad input: it says something, on one line.
// Returns 0, what a fuzz target returns.
inline int CheckErrorLine(const std::string& error) {
  if (error.empty() || error.find('\n') != std::string::npos) std::abort();
  return 0;
}

inline void CheckParsed(const Result<History>& parsed) {
  if (!parsed.ok()) {
    CheckErrorLine(parsed.error());
    return;
  }
  for (const Op& op : *parsed) {
    if (OpToJsonLine(op).empty()) std::abort();
  }
}

}  // namespace locksmith
