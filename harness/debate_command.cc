#include "harness/debate_command.h"

#include <filesystem>
#include <map>
#include <regex>
#include <sstream>

#include "backends/backend_registry.h"
#include "base/atomic_file.h"
#include "base/exit_codes.h"
#include "base/input_file.h"
#include "base/option_set.h"
#include "base/sha256.h"
#include "base/terminal_text.h"
#include "base/text.h"
#include "harness/run_config.h"
#include "harness/run_modules.h"
#include "harness/scenario_library.h"
#include "harness/shard_record.h"
#include "harness/suite_runner.h"
#include "reports/debate_doc.h"
#include "reports/debate_page.h"
#include "reports/escape.h"
#include "reports/run_results.h"
#include "reports/suite_record_reader.h"

namespace locksmith {
namespace {

namespace fs = std::filesystem;

// "The debate matrix ... at time scale 0.5.": the suite's description, which
// `--from` reads the scale back from (a merge keeps it).
std::string DebateDescription(int repeats, double scale) {
  std::ostringstream text;
  text << "The debate matrix (locksmith debate): every scenario of the library, " << repeats
       << " runs each at time scale " << scale << ".";
  return text.str();
}

std::optional<double> ScaleOfDescription(const std::string& description) {
  static const std::regex kScale("at time scale ([0-9.eE+-]+)\\.$");
  std::smatch m;
  if (!std::regex_search(description, m, kScale)) return std::nullopt;
  try {
    return std::stod(m[1].str());
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The name a client program goes by: the adapters/ folder it lives in
// ("exec:node adapters/node-redlock/lock.js" is node-redlock), else its
// program's file name.
std::string ExecClientName(const std::string& client) {
  static const std::regex kAdapter("adapters/([A-Za-z0-9._-]+)/");
  std::smatch m;
  if (std::regex_search(client, m, kAdapter)) return m[1].str();
  const std::string command = client.substr(5);
  const std::string program = command.substr(0, command.find(' '));
  return fs::path(program).filename().string();
}

std::string TextOf(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

double NumberOf(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0;
}

// What a scenario is, from a config (a run's config.json, or its file).
DebateScenarioFacts FactsOf(const std::string& name, const nlohmann::json& config) {
  DebateScenarioFacts f;
  f.name = name;
  f.row = TextOf(config, "scenario");
  f.backend = TextOf(config, "backend");
  if (f.backend.empty()) f.backend = DefaultBackendName();
  const std::string client = TextOf(config, "client");
  auto backend = FindBackend(f.backend);
  const std::string default_client =
      backend && !(*backend)->clients.empty() ? (*backend)->clients.front() : "";
  f.client = client.empty() ? default_client
             : client.rfind("exec:", 0) == 0 ? ExecClientName(client)
                                             : client;
  f.default_client = f.client == default_client;
  f.fenced = TextOf(config, "fencing") == "on";
  f.predicted_verdict = TextOf(config, "predicted_verdict");
  if (f.predicted_verdict.empty()) {
    const std::string letter = TextOf(config, "prediction");
    f.predicted_verdict = letter == "Y" ? "invalid" : letter == "N" ? "valid" : "";
  }
  f.predicted_anomaly = TextOf(config, "predicted_anomaly");
  f.run_length_s = NumberOf(config, "time_limit_s");
  return f;
}

// The scenario's file in the library, as JSON; null when it is gone.
nlohmann::json LibraryConfig(const std::string& name) {
  auto path = ScenarioPath(name);
  if (!path) return nullptr;
  auto j = ReadConfigJsonFile(*path);
  return j ? *j : nlohmann::json(nullptr);
}

// A JSON document of a run directory; null when absent or unreadable (the
// run then counts as not judged, which its suite row says too).
nlohmann::json RunDocument(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return nullptr;
  auto j = ReadJsonFile(path);
  return j && j->is_object() ? *j : nlohmann::json(nullptr);
}

std::set<std::string> AnomalyKinds(const nlohmann::json& results) {
  std::set<std::string> kinds;
  auto it = results.is_object() ? results.find("anomalies") : results.end();
  if (!results.is_object() || it == results.end() || !it->is_array()) return kinds;
  for (const auto& a : *it) {
    if (!a.is_object()) continue;
    for (const char* key : {"class", "type"}) {
      if (std::string kind = TextOf(a, key); !kind.empty()) kinds.insert(kind);
    }
  }
  return kinds;
}

// The command that replays a run: the scenario and the seed, with the time
// limit and interval the run had when they differ from its file's (a
// shortened matrix); the run's config.json when the file is gone.
std::string ReplayOf(const std::string& name, const SuiteRun& run, const nlohmann::json& config,
                     const nlohmann::json& library, const std::string& run_dir) {
  if (library.is_null() || !config.is_object()) {
    return "locksmith run --config " + run_dir + "/config.json";
  }
  std::ostringstream cmd;
  cmd << "locksmith run --scenario " << name << " --seed " << run.seed;
  const bool scripted = config.contains("steps") && !config["steps"].is_null();
  if (!scripted) {
    for (auto [key, flag] : {std::pair{"time_limit_s", "--time-limit"},
                             std::pair{"nemesis_interval_s", "--nemesis-interval"}}) {
      const double ran = NumberOf(config, key);
      if (library.contains(key) ? ran != NumberOf(library, key) : true) {
        cmd << " " << flag << " " << ran;
      }
    }
  }
  return cmd.str();
}

// Runs the suite planned per cell: a shard's share (its shard.json), else
// the whole suite's repeats.
std::map<std::string, int> PlannedPerCell(const SuiteRecord& record, const std::string& dir) {
  std::map<std::string, int> planned;
  if (fs::exists(dir + "/shard.json")) {
    if (auto j = ReadJsonFile(dir + "/shard.json"); j) {
      if (auto shard = ShardRecordFromJson(*j); shard) {
        for (const auto& run : shard->runs) ++planned[run.cell];
        return planned;
      }
    }
  }
  const int per_cell = record.cells.empty()
                           ? 0
                           : record.planned_runs / static_cast<int>(record.cells.size());
  for (const auto& cell : record.cells) planned[cell] = per_cell;
  return planned;
}

// One cell's runs, read from their directories.
DebateScenarioRuns ScenarioRunsOf(const std::string& cell, const SuiteRecord& record,
                                  const std::string& dir, int planned) {
  DebateScenarioRuns s;
  s.planned = planned;
  const nlohmann::json library = LibraryConfig(cell);
  nlohmann::json facts_from = library;
  for (const SuiteRun& run : record.runs) {
    if (run.cell != cell) continue;
    const std::string run_dir = run.dir.empty() ? "" : dir + "/" + run.dir;
    const nlohmann::json config = run_dir.empty() ? nullptr : RunDocument(run_dir + "/config.json");
    const nlohmann::json results =
        run_dir.empty() ? nullptr : RunDocument(run_dir + "/results.json");
    if (config.is_object() && (facts_from.is_null() || s.runs.empty())) facts_from = config;
    DebateRunFacts r{run, AnomalyKinds(results), "", ReplayOf(cell, run, config, library, run_dir)};
    std::error_code ec;
    if (!run_dir.empty() && fs::is_regular_file(run_dir + "/report.html", ec)) {
      r.report = run.dir + "/report.html";
    }
    s.runs.push_back(std::move(r));
  }
  s.facts = FactsOf(cell, facts_from.is_object() ? facts_from : nlohmann::json::object());
  return s;
}

void PrintEntries(const DebateMatrix& m, const std::string& dir, std::ostream& out) {
  for (const auto& e : m.entries) {
    std::string line = "  " + (e.row.empty() ? std::string("—") : e.row) + " " + e.column + " " +
                       e.scenario + ": predicted " + DebateLetter(e.predicted_verdict) +
                       ", " + DebateObservedText(e) + ", " + e.agreement;
    if (e.median_first_violation_s) {
      line += ", median first violation after " +
              FormatDurationNs(*e.median_first_violation_s * 1e9);
    }
    out << TerminalSafe(line) << "\n";
  }
  out << "debate matrix: " << TerminalSafe(dir) << "/debate.html (and debate.json)\n";
}

std::string Joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

std::string CommandOf(const DebateOptions& o, uint64_t seed) {
  std::ostringstream cmd;
  cmd << "locksmith debate --repeats " << o.repeats << " --seed " << seed;
  if (o.time_scale) cmd << " --time-scale " << *o.time_scale;
  if (!o.only.empty()) cmd << " --only " << Joined(o.only);
  if (o.shard) cmd << " --shard " << o.shard->Text();
  return cmd.str();
}

}  // namespace

std::string DebateShapeFile() { return ScenarioDirectory() + "/debate/matrix.json"; }

Result<DebateShape> LoadDebateShape(const std::string& path) {
  auto j = ReadConfigJsonFile(path);
  if (!j) return Error{j.error()};
  auto shape = DebateShapeFromJson(*j);
  if (!shape) return Error{path + ": " + shape.error()};
  return shape;
}

Result<Suite> DebateSuite(const DebateOptions& options) {
  auto library = ListScenarios();
  if (!library) return Error{library.error()};
  std::vector<std::string> names;
  for (const auto& s : *library) names.push_back(s.name);
  if (!options.only.empty()) {
    for (const auto& name : options.only) {
      if (auto path = ScenarioPath(name); !path) return Error{"--only: " + path.error()};
    }
    names = options.only;
  }
  nlohmann::json contents = nlohmann::json::array();
  for (const auto& name : names) contents.push_back({name, LibraryConfig(name)});
  const nlohmann::json j = {
      {"description", DebateDescription(options.repeats, options.time_scale.value_or(1))},
      {"test_count", options.repeats},
      {"scenarios", names}};
  SuiteOverrides overrides;
  overrides.seed = options.seed;
  overrides.time_scale = options.time_scale;
  overrides.store = options.store;
  auto suite = ParseSuite(j, "debate", overrides);
  if (!suite) return Error{suite.error()};
  suite->digest = Sha256Hex(j.dump() + contents.dump());
  return suite;
}

Result<DebateMatrix> DebateMatrixOfSuite(const SuiteRecord& record, const std::string& dir,
                                         const DebateShape& shape, const std::string& command) {
  const std::map<std::string, int> planned = PlannedPerCell(record, dir);
  std::vector<DebateScenarioRuns> scenarios;
  for (const auto& cell : record.cells) {
    auto it = planned.find(cell);
    const int k = it == planned.end() ? 0 : it->second;
    if (k == 0) continue;  // another shard's
    scenarios.push_back(ScenarioRunsOf(cell, record, dir, k));
  }
  DebateMatrix m = BuildDebateMatrix(shape, scenarios);
  m.seed = record.seed;
  m.time_scale = ScaleOfDescription(record.description);
  m.suite_dir = dir;
  m.command = command;
  return m;
}

Status WriteDebateFiles(const DebateMatrix& matrix, const std::string& dir) {
  if (Status s = WriteFileAtomically(dir + "/debate.json",
                                     DumpJson(DebateMatrixJson(matrix), 2) + "\n");
      !s) {
    return s;
  }
  return WriteFileAtomically(dir + "/debate.html", RenderDebatePage(matrix));
}

int DebateExitCode(const DebateMatrix& matrix) {
  int code = 0;
  for (const auto& e : matrix.entries) {
    if (e.agreement == "disagrees") return 1;
    if (e.agreement == "undecided") code = 2;
  }
  return code;
}

int RunDebate(const DebateOptions& options, SignalWatcher& signals, std::ostream& out,
              std::ostream& err) {
  auto shape = LoadDebateShape(options.matrix_file.empty() ? DebateShapeFile()
                                                           : options.matrix_file);
  if (!shape) return err << "locksmith: " << TerminalSafe(shape.error()) << "\n", kExitBadInput;
  auto suite = DebateSuite(options);
  if (!suite) return err << "locksmith: " << TerminalSafe(suite.error()) << "\n", kExitBadInput;
  SuiteOutcome outcome = ExecuteSuite(*suite, signals, DefaultRunModules(), out, options.shard);
  if (!outcome.error.empty()) {
    err << "locksmith: " << TerminalSafe(outcome.error) << "\n";
    return outcome.exit_code;
  }
  PrintSuiteSummary(outcome, out);
  auto matrix = DebateMatrixOfSuite(outcome.record, outcome.dir, *shape,
                                    CommandOf(options, outcome.record.seed));
  if (!matrix) return err << "locksmith: " << TerminalSafe(matrix.error()) << "\n", kExitRunFailed;
  matrix->time_scale = options.time_scale.value_or(1);
  if (Status s = WriteDebateFiles(*matrix, outcome.dir); !s) {
    err << "locksmith: debate matrix: " << TerminalSafe(s.error()) << "\n";
    return kExitRunFailed;
  }
  PrintEntries(*matrix, outcome.dir, out);
  if (!outcome.record.interrupted.empty()) return outcome.exit_code;
  return DebateExitCode(*matrix);
}

int RunDebateFrom(const std::string& dir, const std::string& matrix_file, std::ostream& out,
                  std::ostream& err) {
  auto shape = LoadDebateShape(matrix_file.empty() ? DebateShapeFile() : matrix_file);
  if (!shape) return err << "locksmith: " << TerminalSafe(shape.error()) << "\n", kExitBadInput;
  auto summary = ReadJsonFile(dir + "/summary.json");
  if (!summary) {
    err << "locksmith: --from: " << TerminalSafe(summary.error()) << "\n";
    return kExitBadInput;
  }
  auto record = SuiteRecordFromJson(*summary);
  if (!record) {
    err << "locksmith: --from: " << TerminalSafe(dir + "/summary.json: " + record.error()) << "\n";
    return kExitBadInput;
  }
  auto matrix = DebateMatrixOfSuite(*record, dir, *shape, "locksmith debate --from " + dir);
  if (!matrix) return err << "locksmith: " << TerminalSafe(matrix.error()) << "\n", kExitBadInput;
  if (Status s = WriteDebateFiles(*matrix, dir); !s) {
    err << "locksmith: debate matrix: " << TerminalSafe(s.error()) << "\n";
    return kExitRunFailed;
  }
  PrintEntries(*matrix, dir, out);
  return DebateExitCode(*matrix);
}

int RunDebateDoc(const std::string& json_path, const std::string& patch_path, std::ostream& out,
                 std::ostream& err) {
  auto j = ReadJsonFile(json_path);
  if (!j) return err << "locksmith: " << TerminalSafe(j.error()) << "\n", kExitBadInput;
  auto matrix = DebateMatrixFromJson(*j);
  if (!matrix) {
    err << "locksmith: " << TerminalSafe(json_path + ": " + matrix.error()) << "\n";
    return kExitBadInput;
  }
  if (patch_path.empty()) {
    out << DebateDocTables(*matrix);
    return 0;
  }
  auto doc = ReadInputFile(patch_path, kMaxConfigFileBytes);
  if (!doc) return err << "locksmith: " << TerminalSafe(doc.error()) << "\n", kExitBadInput;
  auto patched = PatchDebateDoc(*doc, *matrix);
  if (!patched) {
    err << "locksmith: " << TerminalSafe(patch_path + ": " + patched.error()) << "\n";
    return kExitBadInput;
  }
  if (Status s = WriteFileAtomically(patch_path, *patched); !s) {
    err << "locksmith: " << TerminalSafe(s.error()) << "\n";
    return kExitRunFailed;
  }
  out << "debate tables of " << TerminalSafe(json_path) << " written into "
      << TerminalSafe(patch_path) << "\n";
  return 0;
}

}  // namespace locksmith
