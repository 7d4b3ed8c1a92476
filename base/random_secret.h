// RandomSecret: a secret no one can derive from what a run publishes (its
// seed is in config.json, report.html and on stdout): the servers'
// passwords. It comes from the kernel's random source (getrandom(2), or
// /dev/urandom where that call is missing), never from the run's seed, so a
// replay of a run gets a new one. Each one is a run secret
// (base/run_secrets.h): redacted from all the process writes and prints.
// Thread-safe.
#pragma once

#include <cstddef>
#include <string>

#include "base/result.h"

namespace locksmith {

// `bytes` random bytes as lowercase hex (2 * bytes characters). An error
// only when the kernel gives no randomness at all.
Result<std::string> RandomSecret(size_t bytes = 16);

// A password for a run's servers (a backend's nodes, the resource store):
// "ls-" and a RandomSecret, so it never comes from the run's seed, which the
// run publishes.
Result<std::string> NewServerPassword();

}  // namespace locksmith
