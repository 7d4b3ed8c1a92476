#include "reports/run_results.h"

#include <sys/stat.h>

#include "base/json_input.h"
#include "base/limits.h"

namespace locksmith {

const char* VerdictText(Validity v) {
  switch (v) {
    case Validity::kTrue: return "valid";
    case Validity::kFalse: return "INVALID";
    case Validity::kUnknown: return "unknown";
  }
  return "unknown";
}

Result<nlohmann::json> ReadJsonFile(const std::string& path) {
  return ReadJsonInputFile(path, kMaxStoredJsonBytes);
}

Result<RunResults> RunResults::Parse(const nlohmann::json& results) {
  if (!results.is_object()) return Error{"results must be a JSON object with \"valid\""};
  auto valid_it = results.find("valid");
  if (valid_it == results.end()) return Error{"results has no \"valid\" field"};
  auto valid = ValidityFromJson(*valid_it);
  if (!valid) return Error{"results: " + valid.error()};

  RunResults r;
  r.json_ = results;
  r.valid_ = *valid;
  if (auto it = results.find("reason"); it != results.end() && !it->is_null()) {
    if (!it->is_string()) return Error{"results: \"reason\" must be a string"};
    r.reason_ = it->get<std::string>();
  }
  if (auto it = results.find("anomalies"); it == results.end() || it->is_null()) {
    r.json_["anomalies"] = nlohmann::json::array();
  } else if (!it->is_array()) {
    return Error{"results: \"anomalies\" must be an array"};
  }
  if (auto it = results.find("stats"); it == results.end() || it->is_null()) {
    r.json_["stats"] = nlohmann::json::object();
  } else if (!it->is_object()) {
    return Error{"results: \"stats\" must be an object"};
  }

  const nlohmann::json& stats = r.json_["stats"];
  bool composite = !stats.empty();
  for (const auto& [name, sub] : stats.items()) {
    if (!sub.is_object() || !sub.contains("valid") || !ValidityFromJson(sub["valid"]).ok()) {
      composite = false;
    }
  }
  if (composite) {
    for (const auto& [name, sub] : stats.items()) {
      CheckerOutcome c;
      c.name = name;
      c.valid = *ValidityFromJson(sub["valid"]);
      if (auto it = sub.find("reason"); it != sub.end() && it->is_string()) c.reason = it->get<std::string>();
      if (auto it = sub.find("stats"); it != sub.end()) c.stats = *it;
      r.checkers_.push_back(std::move(c));
    }
  } else {
    CheckerOutcome c;
    c.name = "results";
    c.valid = r.valid_;
    c.reason = r.reason_;
    c.stats = stats;
    r.checkers_.push_back(std::move(c));
  }

  std::vector<nlohmann::json> unattributed;
  for (const auto& a : r.json_["anomalies"]) {
    CheckerOutcome* owner = r.checkers_.size() == 1 ? &r.checkers_[0] : nullptr;
    if (a.is_object()) {
      if (auto it = a.find("checker"); it != a.end() && it->is_string()) {
        for (auto& c : r.checkers_) {
          if (c.name == it->get<std::string>()) owner = &c;
        }
      }
    }
    if (owner != nullptr) {
      owner->anomalies.push_back(a);
    } else {
      unattributed.push_back(a);
    }
  }
  if (!unattributed.empty()) {
    CheckerOutcome c;
    c.name = "unattributed";
    c.valid = Validity::kFalse;
    c.reason = "anomalies that name no known checker";
    c.anomalies = std::move(unattributed);
    r.checkers_.push_back(std::move(c));
  }
  return r;
}

namespace {

// Why results.json could not be read, with what to do when it is missing.
std::string ResultsError(const std::string& path, const std::string& error) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) return error;
  return error + " (run the checkers first to produce it)";
}

}  // namespace

Result<RunResults> RunResults::Read(const std::string& path) {
  auto j = ReadJsonFile(path);
  if (!j) return Error{ResultsError(path, j.error())};
  auto r = Parse(*j);
  if (!r) return Error{path + ": " + r.error()};
  return r;
}

Result<RunDocuments> ReadRunDocuments(const std::string& run_dir) {
  RunDocuments docs;
  auto results = ReadJsonFile(run_dir + "/results.json");
  if (!results) return Error{ResultsError(run_dir + "/results.json", results.error())};
  if (auto parsed = RunResults::Parse(*results); !parsed) {
    return Error{run_dir + "/results.json: " + parsed.error()};
  }
  docs.results = std::move(results).value();
  const std::string config = run_dir + "/config.json";
  if (auto c = ReadJsonFile(config); c) {
    docs.config = std::move(c).value();
  } else if (struct stat st {}; ::lstat(config.c_str(), &st) == 0) {
    return Error{c.error()};  // present but unreadable: say so rather than hide it
  }
  return docs;
}

}  // namespace locksmith
