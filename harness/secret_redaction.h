// RedactSecrets: keeps a run's secrets (its servers' passwords) out of the
// node files the run keeps in its directory (configs, logs, what a server
// rewrote): every occurrence in a regular file under the directory becomes
// "<redacted>". Only files that hold a secret are rewritten, each replaced
// atomically (base/atomic_file.h); where no new file fits (a full disk),
// each secret is overwritten in place with as many '*'. Links are never
// followed. Called after teardown, once no server reads those files.
// Stateless; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"

namespace locksmith {

inline constexpr char kRedacted[] = "<redacted>";

// Redacts `secrets` (empty ones ignored) in every regular file under `dir`
// (a missing `dir` holds none). The error names each file it could not
// read or rewrite; the others are redacted all the same.
Status RedactSecrets(const std::string& dir, const std::vector<std::string>& secrets);

}  // namespace locksmith
