// RedactSecrets: keeps a run's secrets (its servers' passwords, see
// base/run_secrets.h) out of the files the run keeps in its directory (node
// configs, logs, what a server rewrote, the exec clients' logs, results and
// reports): every occurrence in a regular file under the directory becomes
// kRedacted. Only files that hold a secret are rewritten, each replaced
// atomically (base/atomic_file.h); where no new file fits (a full disk),
// each secret is overwritten in place with as many '*'. Links are never
// followed. Called after teardown, once no server reads those files.
// Stateless; thread-safe.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/run_secrets.h"
#include "history/history.h"

namespace locksmith {

// Redacts `secrets` (empty ones ignored) in every regular file under `dir`
// (a missing `dir` holds none) but those named in `skip` (files or
// directories, relative to `dir`). The error names each file it could not read or rewrite; the
// others are redacted all the same.
Status RedactSecrets(const std::string& dir, const std::vector<std::string>& secrets,
                     const std::set<std::string>& skip = {});

// A copy of `op` with every run secret (RunSecretList) in its strings (f,
// key, error, the strings of its value and fault) redacted; nullopt when it
// holds none, which is the common case and costs no copy.
std::optional<Op> RedactedOp(const Op& op);

}  // namespace locksmith
