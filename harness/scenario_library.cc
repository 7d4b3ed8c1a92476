#include "harness/scenario_library.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <utility>

#include "base/option_set.h"
#include "base/terminal_text.h"
#include "harness/run_config.h"

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

Result<ScenarioInfo> ScenarioInfoFromJson(const nlohmann::json& j, const std::string& name) {
  if (!j.is_object()) return Error{"not a JSON object"};
  ScenarioInfo info{name, "", "", "", "", ""};
  for (auto [key, field] : {std::pair{"description", &info.description},
                            std::pair{"prediction", &info.prediction},
                            std::pair{"scenario", &info.row},
                            std::pair{"predicted_verdict", &info.predicted_verdict},
                            std::pair{"predicted_anomaly", &info.predicted_anomaly}}) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) continue;
    if (!it->is_string()) return Error{std::string("\"") + key + "\" must be a string"};
    *field = it->get<std::string>();
  }
  return info;
}

Result<std::vector<ScenarioInfo>> ListScenarios() {
  std::vector<ScenarioInfo> scenarios;
  for (const auto& name : ScenarioNames()) {
    const std::string path = ScenarioDirectory() + "/" + name + ".json";
    auto j = ReadConfigJsonFile(path);
    if (!j) return Error{j.error()};
    auto info = ScenarioInfoFromJson(*j, name);
    if (!info) return Error{path + ": " + info.error()};
    scenarios.push_back(std::move(info).value());
  }
  return scenarios;
}

void PrintScenarios(std::ostream& out, const std::vector<ScenarioInfo>& scenarios) {
  for (const auto& s : scenarios) {
    std::string line = s.name;
    std::string predicts;
    if (!s.prediction.empty()) {
      predicts = s.prediction == "Y" ? "two holders at once" : "no double holder";
    } else if (!s.predicted_verdict.empty()) {
      predicts = "a verdict of " + s.predicted_verdict;
    }
    if (!s.predicted_anomaly.empty()) predicts += ": " + s.predicted_anomaly;
    if (!predicts.empty()) {
      line += "  (predicts " + predicts;
      if (!s.row.empty()) line += "; debate row " + s.row;
      line += ")";
    }
    out << TerminalSafe(line) << "\n    " << TerminalSafe(s.description) << "\n";
  }
}

}  // namespace locksmith
