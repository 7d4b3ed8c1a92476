// RunResults: a run's results.json (CheckResult::ToJson, usually of the
// composite checker) validated and split per checker, for the HTML report and
// JUnit XML. A composite's "stats" holds {checker name: {valid, stats,
// reason?}}; its anomalies carry "checker". Anything else is one checker
// named "results". Plain value, not thread-safe.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "checker/checker.h"

namespace locksmith {

class RunResults {
 public:
  struct CheckerOutcome {
    std::string name;
    Validity valid = Validity::kTrue;
    std::string reason;
    nlohmann::json stats;  // the checker's own stats (may be null)
    std::vector<nlohmann::json> anomalies;
  };

  // Validates the top-level shape: an object with "valid" (true, false or
  // "unknown"), and optional "anomalies" (array), "stats" (object), "reason".
  static Result<RunResults> Parse(const nlohmann::json& results);
  // Reads and parses `path`; errors name the file and what to do about it.
  static Result<RunResults> Read(const std::string& path);

  Validity valid() const { return valid_; }
  const std::string& reason() const { return reason_; }
  const nlohmann::json& json() const { return json_; }
  const nlohmann::json& anomalies() const { return json_["anomalies"]; }
  const std::vector<CheckerOutcome>& checkers() const { return checkers_; }

 private:
  nlohmann::json json_;
  Validity valid_ = Validity::kTrue;
  std::string reason_;
  std::vector<CheckerOutcome> checkers_;
};

// "valid", "INVALID" or "unknown".
const char* VerdictText(Validity v);

// A run directory's results.json (validated) and config.json (null when
// absent; a present but malformed one is an error), as the writers need them.
struct RunDocuments {
  nlohmann::json results;
  nlohmann::json config;
};
Result<RunDocuments> ReadRunDocuments(const std::string& run_dir);

// Reads a JSON document of a run's or a suite's directory: a regular file of
// at most kMaxStoredJsonBytes, nesting bounded (base/json_input.h). Errors
// name the file.
Result<nlohmann::json> ReadJsonFile(const std::string& path);

}  // namespace locksmith
