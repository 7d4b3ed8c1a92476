// What the cluster layer's fuzz targets check of every input, single-threaded
// as libFuzzer calls them: a parser returns a value or an error of one line,
// never a crash or an exception.
#pragma once

#include <cstdlib>
#include <string>

namespace locksmith {

// An error locksmith prints: it says something, on one line.
inline void RequireErrorLine(const std::string& error) {
  if (error.empty() || error.find('\n') != std::string::npos) std::abort();
}

inline void Require(bool holds) {
  if (!holds) std::abort();
}

}  // namespace locksmith
