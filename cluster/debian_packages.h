// Which Debian packages this machine lacks, read from dpkg's status file, so a
// run on the local provider can say which package its backend's servers need
// before it starts them (scripts/setup.sh installs only the main job's servers
// unless asked for all). Stateless; safe from any thread.
#pragma once

#include <string>
#include <vector>

namespace locksmith {

// The machine's dpkg status file.
inline constexpr const char* kDpkgStatusFile = "/var/lib/dpkg/status";

// Those of `packages` that dpkg does not list as installed ("install ok
// installed") in `status_file`, in the order given. A machine without the
// file (not Debian) has no answer: nothing is reported missing.
std::vector<std::string> MissingDebianPackages(const std::vector<std::string>& packages,
                                               const std::string& status_file = kDpkgStatusFile);

}  // namespace locksmith
