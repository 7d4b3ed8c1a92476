// The scenario library: the JSON scenario files in scenarios/ (a run's
// config plus, for scripted faults, "steps"), listed by `locksmith
// scenarios` and run by name with `locksmith run --scenario NAME`. The
// directory is $LOCKSMITH_SCENARIOS when set, else the source tree's
// scenarios/ (compiled in). Free functions; thread-safe (reads files).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace locksmith {

struct ScenarioInfo {
  std::string name;         // the file name without ".json"
  std::string description;  // one paragraph
  std::string prediction;   // "Y": two holders at once possible, "N": not, "": none
  std::string row;          // the debate row it tests ("scenario"), may be empty
  std::string predicted_verdict;  // "valid", "invalid" or ""
  std::string predicted_anomaly;  // the kind of anomaly an invalid one shows, or ""
};

std::string ScenarioDirectory();

// The file of scenario `name`; an error listing the known names when there
// is none (or the name could leave the directory).
Result<std::string> ScenarioPath(const std::string& name);

// What `locksmith scenarios` lists of one scenario file's JSON: an error
// (one line) when it is not an object or a listed field is not a string.
Result<ScenarioInfo> ScenarioInfoFromJson(const nlohmann::json& j, const std::string& name);

// Every scenario, by name, each file read as a config file is (a regular
// file, bounded; see ReadConfigJsonFile); a damaged one is an error naming it.
Result<std::vector<ScenarioInfo>> ListScenarios();

// One block per scenario: name, predictions and row, then the description.
void PrintScenarios(std::ostream& out, const std::vector<ScenarioInfo>& scenarios);

}  // namespace locksmith
