// WriteFileAtomically: the one way the project replaces a file it writes
// (results, reports, indexes, run records, config.json). Readers see the
// old file or the new one, never a part. The temporary file has a unique
// name in the target's directory (two runs sharing a store never collide)
// and is created exclusively, so a link planted under a predictable name is
// never followed. Thread-safe (no shared state).
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace locksmith {

// Writes `content` to a new file beside `path`, then renames it over
// `path`. Mode 0644 (0600 with `private_file`). On any failure the
// temporary file is removed and the error names the file and the reason.
Status WriteFileAtomically(const std::string& path, std::string_view content,
                           bool private_file = false);

}  // namespace locksmith
