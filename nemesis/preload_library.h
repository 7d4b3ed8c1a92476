// The LD_PRELOAD libraries the fault families put into servers (the clock
// shim, the power shim): where a run finds one, and how a host's spawn
// environment preloads it beside any other. Thread-safe (no state of its
// own; Host's calls are).
#pragma once

#include <string>

#include "base/result.h"
#include "cluster/host.h"

namespace locksmith {

// Makes every later Spawn on `host` preload `library` (an absolute path on
// the host), keeping any library the host already preloads.
Status AddPreloadLibrary(Host& host, const std::string& library);

// The library named `file_name`: $`env_var` when set, else the file next to
// the running executable, else `built_path` (where this build put it; may be
// null). An error names the places it looked and `target`, the build target.
Result<std::string> FindPreloadLibrary(const std::string& file_name, const char* env_var,
                                       const char* built_path, const std::string& target);

}  // namespace locksmith
