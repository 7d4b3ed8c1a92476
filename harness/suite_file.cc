#include "harness/suite_file.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "base/option_set.h"
#include "base/seed.h"
#include "base/sha256.h"
#include "harness/scenario_library.h"

namespace locksmith {
namespace {

// One value of one axis: the run keys it sets and its label in cell names.
struct AxisValue {
  std::string label;
  nlohmann::json keys;
};

// One combination of the matrix: its cell label, its run keys, and each
// axis's value label (what an "exclude" entry names).
struct Combo {
  std::string label;
  nlohmann::json keys;
  std::map<std::string, std::string> labels;
};

// Cell names are directory and test names: letters, digits, '.', '_', '-'.
std::string Label(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool plain = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' ||
                       c == '-';
    out += plain ? c : '_';
  }
  return out.empty() ? "_" : out;
}

Result<std::vector<AxisValue>> ParseAxis(const std::string& axis, const nlohmann::json& values) {
  const std::string where = "matrix \"" + axis + "\"";
  if (!values.is_array() || values.empty()) {
    return Error{where + " must be a non-empty array of values or objects of run keys"};
  }
  std::vector<AxisValue> out;
  for (const auto& v : values) {
    AxisValue value;
    if (v.is_object()) {
      value.keys = v;
      std::string label;
      if (auto it = v.find("name"); it != v.end()) {
        if (!it->is_string() || it->get<std::string>().empty()) {
          return Error{where + ": \"name\" must be a non-empty string"};
        }
        label = it->get<std::string>();
        value.keys.erase("name");
      } else {
        for (const auto& [k, x] : v.items()) {
          label += (label.empty() ? "" : "-") + (x.is_string() ? x.get<std::string>() : x.dump());
        }
      }
      value.label = Label(label);
    } else if (v.is_string() || v.is_number() || v.is_boolean()) {
      value.keys = {{axis, v}};
      value.label = Label(v.is_string() ? v.get<std::string>() : v.dump());
    } else {
      return Error{where + ": each value must be a string, number, boolean or object, not " +
                   std::string(v.type_name())};
    }
    out.push_back(std::move(value));
  }
  return out;
}

Result<int> ParseTestCount(const nlohmann::json& j, const std::string& where) {
  if (!j.is_number_integer() || j.get<int64_t>() < 1 || j.get<int64_t>() > kMaxTestCount) {
    return Error{where + "\"test_count\" must be a whole number from 1 to " +
                 std::to_string(kMaxTestCount) + ", not " + j.dump()};
  }
  return static_cast<int>(j.get<int64_t>());
}

// Every key of `over` replaces `base`'s.
nlohmann::json Layered(nlohmann::json base, const nlohmann::json& over) {
  for (const auto& [k, v] : over.items()) base[k] = v;
  return base;
}

Status Finish(SuiteCell& cell, const SuiteOverrides& overrides) {
  // Scripted steps are timed against the scenario's own time limit: those
  // cells keep it (a shorter one would cut off the faults they exist for).
  if (cell.config.steps.is_null()) {
    if (overrides.time_limit_s) cell.config.time_limit_s = *overrides.time_limit_s;
    if (overrides.time_scale) {
      cell.config.time_limit_s *= *overrides.time_scale;
      cell.config.nemesis_interval_s *= *overrides.time_scale;
    }
  }
  if (overrides.test_count) cell.test_count = *overrides.test_count;
  if (overrides.store) cell.config.store = *overrides.store;
  cell.config.test_name = cell.name;
  if (Status s = ValidateRunConfig(cell.config); !s) {
    return Error{"cell " + cell.name + ": " + s.error()};
  }
  return OkStatus();
}

// The suite's own keys (no unknown one), its description and its seed (the
// overrides' seed wins).
Status ParseSuiteHeader(const nlohmann::json& j, const SuiteOverrides& overrides, Suite& suite) {
  static const std::set<std::string> kKeys = {"description", "seed",      "test_count",
                                              "base",        "matrix",    "exclude",
                                              "scenarios",   "cells"};
  for (const auto& [k, v] : j.items()) {
    if (kKeys.count(k) == 0) {
      return Error{"unknown key \"" + Label(k).substr(0, 40) +
                   "\" (known: base, cells, description, exclude, matrix, scenarios, seed, "
                   "test_count)"};
    }
  }
  if (auto it = j.find("description"); it != j.end()) {
    if (!it->is_string() || it->get<std::string>().size() > kMaxDescriptionBytes) {
      return Error{"\"description\" must be a string of at most " +
                   std::to_string(kMaxDescriptionBytes) + " bytes"};
    }
    suite.description = it->get<std::string>();
  }
  if (auto it = j.find("seed"); it != j.end()) {
    if (!it->is_number_unsigned()) {
      return Error{"\"seed\" must be a whole number from 0 to 18446744073709551615"};
    }
    suite.seed = it->get<uint64_t>();
  }
  if (overrides.seed) suite.seed = overrides.seed;
  return OkStatus();
}

// What every cell starts from.
struct CellDefaults {
  int test_count = 1;
  nlohmann::json base = nlohmann::json::object();  // run keys
};

Result<CellDefaults> ParseCellDefaults(const nlohmann::json& j) {
  CellDefaults defaults;
  if (auto it = j.find("test_count"); it != j.end()) {
    auto count = ParseTestCount(*it, "");
    if (!count) return Error{count.error()};
    defaults.test_count = *count;
  }
  if (auto it = j.find("base"); it != j.end()) {
    if (!it->is_object()) return Error{"\"base\" must be an object of run keys"};
    defaults.base = *it;
  }
  return defaults;
}

// The matrix: every combination of one value per axis, axes in file order.
Result<std::vector<Combo>> MatrixCombos(const nlohmann::json& matrix,
                                        std::map<std::string, std::set<std::string>>& labels) {
  if (!matrix.is_object() || matrix.empty()) {
    return Error{"\"matrix\" must be an object of axes (\"nemesis\": [\"none\", \"kill\"])"};
  }
  std::vector<Combo> combos = {{"", nlohmann::json::object(), {}}};
  for (const auto& [axis, values] : matrix.items()) {
    auto parsed = ParseAxis(axis, values);
    if (!parsed) return Error{parsed.error()};
    std::vector<Combo> next;
    for (const auto& combo : combos) {
      for (const auto& value : *parsed) {
        Combo c{combo.label.empty() ? value.label : combo.label + "." + value.label,
                Layered(combo.keys, value.keys), combo.labels};
        c.labels[axis] = value.label;
        labels[axis].insert(value.label);
        next.push_back(std::move(c));
        if (next.size() > kMaxSuiteCells) {
          return Error{"the matrix has more than " + std::to_string(kMaxSuiteCells) + " cells"};
        }
      }
    }
    combos = std::move(next);
  }
  return combos;
}

// The "exclude" entries: each an object of axis -> a value's label or a list
// of labels ({"lock": ["etcd", "postgres"], "nemesis": "clock"}); a combo
// matching every axis of an entry is left out. Names that match nothing
// are errors, so a typo cannot keep a cell in silently.
using Exclusion = std::map<std::string, std::set<std::string>>;
Result<std::vector<Exclusion>> ParseExclusions(
    const nlohmann::json& j, const std::map<std::string, std::set<std::string>>& labels) {
  const std::string usage =
      "\"exclude\" must be a list of objects of matrix axes and value names "
      "({\"lock\": [\"etcd\", \"postgres\"], \"nemesis\": \"clock\"})";
  if (!j.is_array()) return Error{usage};
  std::vector<Exclusion> out;
  for (const auto& entry : j) {
    if (!entry.is_object() || entry.empty()) return Error{usage};
    Exclusion exclusion;
    for (const auto& [axis, names] : entry.items()) {
      auto known = labels.find(axis);
      if (known == labels.end()) {
        return Error{"\"exclude\": \"" + Label(axis).substr(0, 40) + "\" is not a matrix axis"};
      }
      const nlohmann::json list = names.is_array() ? names : nlohmann::json::array({names});
      if (list.empty()) return Error{usage};
      for (const auto& name : list) {
        if (!name.is_string() || !known->second.contains(name.get<std::string>())) {
          return Error{"\"exclude\": matrix \"" + axis + "\" has no value named " +
                       (name.is_string() ? "\"" + Label(name.get<std::string>()).substr(0, 40) + "\""
                                         : name.dump().substr(0, 40))};
        }
        exclusion[axis].insert(name.get<std::string>());
      }
    }
    out.push_back(std::move(exclusion));
  }
  return out;
}

bool Excluded(const Combo& combo, const std::vector<Exclusion>& exclusions) {
  return std::any_of(exclusions.begin(), exclusions.end(), [&](const Exclusion& e) {
    return std::all_of(e.begin(), e.end(), [&](const auto& axis) {
      return axis.second.contains(combo.labels.at(axis.first));
    });
  });
}

Status AddMatrixCells(const nlohmann::json& matrix, const nlohmann::json& exclude,
                      const CellDefaults& defaults, Suite& suite) {
  std::map<std::string, std::set<std::string>> labels;
  auto combos = MatrixCombos(matrix, labels);
  if (!combos) return Error{combos.error()};
  auto exclusions = ParseExclusions(exclude.is_null() ? nlohmann::json::array() : exclude, labels);
  if (!exclusions) return Error{exclusions.error()};
  for (auto& combo : *combos) {
    if (Excluded(combo, *exclusions)) continue;
    SuiteCell cell;
    cell.name = combo.label;
    cell.test_count = defaults.test_count;
    if (Status s = MergeRunConfigJson(Layered(defaults.base, combo.keys), cell.config,
                                      UnusedKeys::kError);
        !s) {
      return Error{"cell " + cell.name + ": " + s.error()};
    }
    suite.cells.push_back(std::move(cell));
  }
  return OkStatus();
}

Status AddScenarioCells(const nlohmann::json& scenarios, const CellDefaults& defaults,
                        Suite& suite) {
  if (!scenarios.is_array()) return Error{"\"scenarios\" must be an array of scenario names"};
  for (const auto& s : scenarios) {
    if (!s.is_string()) return Error{"\"scenarios\" must be an array of scenario names"};
    auto path = ScenarioPath(s.get<std::string>());
    if (!path) return Error{"scenarios: " + path.error()};
    SuiteCell cell;
    cell.name = Label(s.get<std::string>());
    cell.scenario = s.get<std::string>();
    cell.test_count = defaults.test_count;
    if (Status st = LoadRunConfigFile(*path, cell.config); !st) {
      return Error{"scenario " + cell.name + ": " + st.error()};
    }
    suite.cells.push_back(std::move(cell));
  }
  return OkStatus();
}

// "cells": each its name, maybe its own test_count, and run keys over the base.
Status AddListedCells(const nlohmann::json& cells, const CellDefaults& defaults, Suite& suite) {
  if (!cells.is_array()) return Error{"\"cells\" must be an array of objects of run keys"};
  for (const auto& c : cells) {
    if (!c.is_object() || !c.contains("name") || !c["name"].is_string()) {
      return Error{"\"cells\": each cell is an object with a \"name\" and run keys"};
    }
    SuiteCell cell;
    cell.name = Label(c["name"].get<std::string>());
    cell.test_count = defaults.test_count;
    nlohmann::json keys = c;
    keys.erase("name");
    if (auto tc = keys.find("test_count"); tc != keys.end()) {
      auto count = ParseTestCount(*tc, "cell " + cell.name + ": ");
      if (!count) return Error{count.error()};
      cell.test_count = *count;
      keys.erase("test_count");
    }
    if (Status s = MergeRunConfigJson(Layered(defaults.base, keys), cell.config,
                                      UnusedKeys::kError);
        !s) {
      return Error{"cell " + cell.name + ": " + s.error()};
    }
    suite.cells.push_back(std::move(cell));
  }
  return OkStatus();
}

// At least one cell, not too many, distinct names, each one's config final.
Status FinishCells(Suite& suite, const SuiteOverrides& overrides) {
  if (suite.cells.empty()) {
    return Error{"the suite has no cells: give \"matrix\", \"scenarios\" or \"cells\""};
  }
  if (suite.cells.size() > kMaxSuiteCells) {
    return Error{"the suite has more than " + std::to_string(kMaxSuiteCells) + " cells"};
  }
  std::set<std::string> names;
  for (auto& cell : suite.cells) {
    if (!names.insert(cell.name).second) {
      return Error{"two cells are named " + cell.name + ": give each a distinct \"name\""};
    }
    if (Status s = Finish(cell, overrides); !s) return Error{s.error()};
  }
  return OkStatus();
}

}  // namespace

Status CheckTimeScale(double scale) {
  if (scale > 0 && scale <= kMaxTimeScale) return OkStatus();
  std::ostringstream text;
  text << scale;
  return Error{"--time-scale must be a number above 0 and at most " +
               std::to_string(static_cast<int>(kMaxTimeScale)) +
               " (0.1: a tenth of every run's time limit and fault interval), not " + text.str()};
}

Result<uint64_t> ParseSeedFlag(const std::string& text) {
  uint64_t seed = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seed);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
    return Error{"--seed must be a whole number from 0 to 18446744073709551615, not " +
                 QuoteInput(text)};
  }
  return seed;
}

uint64_t RepeatSeed(uint64_t cell_seed, int repeat) {
  return repeat == 0 ? cell_seed : SubSeed(cell_seed, static_cast<uint64_t>(repeat));
}

Result<Suite> ParseSuite(const nlohmann::json& j, const std::string& name,
                         const SuiteOverrides& overrides) {
  if (!j.is_object()) return Error{"a suite file is a JSON object"};
  if (overrides.time_scale) {
    if (Status s = CheckTimeScale(*overrides.time_scale); !s) return Error{s.error()};
  }
  const std::optional<int>& count = overrides.test_count;
  if (count && (*count < 1 || *count > kMaxTestCount)) {
    return Error{"--test-count must be a whole number from 1 to " + std::to_string(kMaxTestCount)};
  }
  Suite suite;
  suite.name = Label(name);
  if (Status s = ParseSuiteHeader(j, overrides, suite); !s) return Error{s.error()};
  auto defaults = ParseCellDefaults(j);
  if (!defaults) return Error{defaults.error()};
  if (j.contains("exclude") && !j.contains("matrix")) {
    return Error{"\"exclude\" leaves cells out of a \"matrix\", and the suite has none"};
  }
  if (auto it = j.find("matrix"); it != j.end()) {
    if (Status s = AddMatrixCells(*it, j.value("exclude", nlohmann::json()), *defaults, suite);
        !s) {
      return Error{s.error()};
    }
  }
  if (auto it = j.find("scenarios"); it != j.end()) {
    if (Status s = AddScenarioCells(*it, *defaults, suite); !s) return Error{s.error()};
  }
  if (auto it = j.find("cells"); it != j.end()) {
    if (Status s = AddListedCells(*it, *defaults, suite); !s) return Error{s.error()};
  }
  if (Status s = FinishCells(suite, overrides); !s) return Error{s.error()};
  return suite;
}

Result<Suite> LoadSuiteFile(const std::string& path, const SuiteOverrides& overrides) {
  auto j = ReadConfigJsonFile(path);
  if (!j) return Error{j.error()};
  auto suite = ParseSuite(*j, std::filesystem::path(path).stem().string(), overrides);
  if (!suite) return Error{path + ": " + suite.error()};
  suite->digest = Sha256Hex(j->dump());
  return suite;
}

}  // namespace locksmith
