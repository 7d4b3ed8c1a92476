// Shared check for the parser fuzz targets: whatever the input, parsing
// returns a history or an error (never crashes), and every parsed op can be
// written back as a history line (values are valid JSON, UTF-8 included).
// Single-threaded, as libFuzzer calls it.
#pragma once

#include <cstdlib>

#include "base/result.h"
#include "checker/history.h"

namespace locksmith {

inline void CheckParsed(const Result<History>& parsed) {
  if (!parsed.ok()) {
    if (parsed.error().empty()) std::abort();  // errors must say something
    return;
  }
  for (const Op& op : *parsed) {
    if (OpToJsonLine(op).empty()) std::abort();
  }
}

}  // namespace locksmith
