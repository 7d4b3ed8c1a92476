// ReadInputFile: the one way locksmith reads a file someone else may have
// written (a config, suite or scenario file, a history, a run's results.json
// or config.json, a suite's summary.json). Only a regular file is read: a
// FIFO would block forever and /dev/zero would never end, so both are
// refused before a byte is read, on the opened descriptor (a swap after a
// check cannot slip through). The size is bounded, so a file cannot make
// locksmith hold more memory than the caller allows. Thread-safe (no shared
// state).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "base/result.h"

namespace locksmith {

// The whole of `path`, at most `max_bytes` long. Errors are one line naming
// the path: it cannot be opened or read, it is not a regular file, or it is
// (or grew while being read) larger than `max_bytes`; `how_to_raise` ("give
// --max-history-mb") is added to the last in parentheses.
Result<std::string> ReadInputFile(const std::string& path, uint64_t max_bytes,
                                  std::string_view how_to_raise = "");

// Opens `path` for reading as ReadInputFile does (a FIFO, device or
// directory refused on the opened descriptor, without waiting for a FIFO's
// writer): the descriptor (blocking, close-on-exec), or the error line. For
// readers that stream a file rather than read it whole.
Result<int> OpenRegularFile(const std::string& path);
// The same as a stdio stream the caller closes (fclose), for readers that
// go through a buffer of their own.
Result<std::FILE*> OpenRegularFileStream(const std::string& path);

// Whether `path`, taken relative to a directory, names something inside it:
// not empty, not absolute, no ".." component, not the directory itself, no
// NUL. A file that names other files (a suite's summary.json names its runs'
// directories) may name only such paths.
bool IsPathBelow(std::string_view path);

// Whether `path` is a directory itself, not a link to one nor anything else:
// a store's directories are walked without following links, so a planted
// link cannot lead a walk (and what it writes or copies) out of the store.
bool IsRealDirectory(const std::string& path);

// "512 bytes", "1048576 bytes (1 MiB)", "1610612736 bytes (1.5 GiB)".
std::string ByteSizeText(uint64_t bytes);

}  // namespace locksmith
