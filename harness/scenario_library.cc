#include "harness/scenario_library.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "base/option_set.h"

namespace locksmith {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> ScenarioNames() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(ScenarioDirectory(), ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") {
      names.push_back(entry.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

std::string ScenarioDirectory() {
  if (const char* dir = std::getenv("LOCKSMITH_SCENARIOS"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  return LOCKSMITH_SCENARIO_DIR;
}

Result<std::string> ScenarioPath(const std::string& name) {
  static const std::regex kName("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");
  const std::string path = ScenarioDirectory() + "/" + name + ".json";
  if (!std::regex_match(name, kName) || !fs::is_regular_file(path)) {
    return Error{"unknown scenario " + QuoteInput(name) + " (known: " + JoinNames(ScenarioNames()) +
                 "; see locksmith scenarios)"};
  }
  return path;
}

Result<std::vector<ScenarioInfo>> ListScenarios() {
  std::vector<ScenarioInfo> scenarios;
  for (const auto& name : ScenarioNames()) {
    const std::string path = ScenarioDirectory() + "/" + name + ".json";
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    auto j = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) return Error{path + ": not a JSON object"};
    auto field = [&](const char* key) {
      auto it = j.find(key);
      return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    scenarios.push_back({name, field("description"), field("prediction"), field("scenario"),
                         field("predicted_verdict"), field("predicted_anomaly")});
  }
  return scenarios;
}

void PrintScenarios(std::ostream& out, const std::vector<ScenarioInfo>& scenarios) {
  for (const auto& s : scenarios) {
    out << s.name;
    std::string predicts;
    if (!s.prediction.empty()) {
      predicts = s.prediction == "Y" ? "two holders at once" : "no double holder";
    } else if (!s.predicted_verdict.empty()) {
      predicts = "a verdict of " + s.predicted_verdict;
    }
    if (!s.predicted_anomaly.empty()) predicts += ": " + s.predicted_anomaly;
    if (!predicts.empty()) {
      out << "  (predicts " << predicts;
      if (!s.row.empty()) out << "; debate row " << s.row;
      out << ")";
    }
    out << "\n    " << s.description << "\n";
  }
}

}  // namespace locksmith
