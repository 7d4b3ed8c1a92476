// RunStore: a run's directory, store/<test-name>/<timestamp>/, holding
// config.json, history.bin, results.json, locksmith.log, report.html,
// junit.xml and nodes/<node>/; store/latest points at the newest run. Plain
// value; creation is safe against concurrent runs (a taken directory name
// gets a suffix).
#pragma once

#include <string>

#include "base/result.h"

namespace locksmith {

struct RunStore {
  std::string dir;
  std::string File(const std::string& name) const { return dir + "/" + name; }
  std::string NodesDir() const { return dir + "/nodes"; }
};

// Creates <root>/<name>/<timestamp>/ (a suffix when the name is taken) and
// points <root>/latest at it; returns its absolute path.
Result<std::string> CreateStampedDirectory(const std::string& root, const std::string& name);

// Creates the run directory (and nodes/) and points <root>/latest at it.
Result<RunStore> CreateRunStore(const std::string& root, const std::string& test_name);

}  // namespace locksmith
