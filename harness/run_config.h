// RunConfig: the whole resolved configuration of one run, typed and
// validated. It comes from CLI flags over an optional JSON scenario file (the
// same keys as the flags) and is written to config.json, seed included, so
// `locksmith run --config <run>/config.json` replays a run. Plain value; not
// thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/backend_registry.h"
#include "base/option_set.h"
#include "base/result.h"
#include "nemesis/nemesis_registry.h"

namespace locksmith {

// Bounds on input, so a stray file or field cannot stall a run or bloat
// config.json and report.html (which copy the text fields).
inline constexpr size_t kMaxConfigFileBytes = 1 << 20;  // a config file: 1 MiB
inline constexpr size_t kMaxDescriptionBytes = 4096;    // "description": a few paragraphs
inline constexpr size_t kMaxScenarioBytes = 64;         // "scenario": a debate row id, e.g. "6"
inline constexpr size_t kMaxStoreBytes = 4096;          // "store": a path (PATH_MAX)

// One registered module that declares options: "backend redis", ...
struct ModuleKey {
  std::string kind;  // "backend", "workload" or "nemesis"
  std::string name;  // "redis"
  OptionSpec spec;   // one of its options
  std::string help;  // spec's help with the module's default
  std::string default_text;  // that default alone ("" when help shows none)
};
// Every option of every registered backend, workload and nemesis family, in
// registry order. Two modules may declare the same key (with the same
// meaning: the registry test checks that).
const std::vector<ModuleKey>& ModuleKeys();

// The common keys are RunConfig's own fields; each chosen module's keys live
// in its options object (backend_options, ...), declared next to the module.
// config.json stays flat: common keys and the chosen modules' keys side by
// side, as before.
struct RunConfig {
  std::string test_name;  // empty: derived from backend, workload, nemesis
  std::string store = "store";
  std::string backend = DefaultBackendName();
  std::string workload = "mutex";
  std::string client;                // the backend's lock client; empty: its default
  int concurrency = 10;              // clients, each with its own connection (every workload)
  double rate = 0;                   // total op attempts per second, 0 = unlimited
  double time_limit_s = 30;
  std::optional<uint64_t> seed;      // unset: drawn at random, then logged
  std::vector<std::string> nemesis;  // fault families, e.g. {"kill"}
  // `nemesis` came from the preset "all": the run leaves out the families
  // that do not fit its backend (LeaveOutUnfitNemeses), and config.json
  // says "all" so a rerun on another backend chooses again.
  bool nemesis_all = false;
  double nemesis_interval_s = 10;
  int64_t client_timeout_ms = 500;   // deadline of every client call
  std::string fencing = "off";       // "on": acquires carry fences the resource enforces
  bool loopback = false;             // never use namespaces, even as root
  // Where the hosts are: "local" (namespaces or loopback of this machine) or
  // "ssh" (the nodes below, reached with the OpenSSH client).
  std::string provider = "local";
  std::vector<std::string> nodes;    // --provider ssh: node host names or addresses, in order
  std::string nodes_file;            // or a file of them, one a line
  std::string ssh_user = "root";
  std::string ssh_key;               // identity file; empty: ssh's defaults
  int ssh_port = 22;
  std::string ssh_known_hosts;       // known-hosts file; empty: ssh's defaults
  std::string scenario;              // the debate row a scenario file tests (docs/debate.md)
  std::string prediction;            // what the debate predicts: "Y" (two holders possible) or "N"
  // What a scenario predicts of the run, as data its test reads: the
  // verdict ("valid" or "invalid") and, for an invalid one, the kind of
  // anomaly (a "class" or "type" the checkers emit: "unsafe-grant",
  // "expired-lease-use", "oversold", "crashed-acquirer", ...).
  std::string predicted_verdict;
  std::string predicted_anomaly;
  std::string description;           // free text from a scenario file
  // Scripted fault steps (nemesis/scenario_steps.h) replacing the seeded
  // schedule; null when there are none. Their families join `nemesis`.
  nlohmann::json steps;

  // The options of the chosen backend and workload, and of each chosen
  // nemesis family in `nemesis` order. SelectModules() keeps them in step
  // with the names (MergeRunConfigJson calls it).
  OwnedOptions backend_options;
  OwnedOptions workload_options;
  std::vector<OwnedOptions> nemesis_options;

  RunConfig() { (void)SelectModules(); }  // nothing is kept aside yet: cannot fail

  // Makes default options for every chosen module whose options are missing
  // or another module's; a known name's options are kept. Unknown names get
  // none (ValidateRunConfig names them). Keys a config file gave for a
  // module not chosen then apply to it (see MergeRunConfigJson); the error
  // names such a key whose value has the wrong type.
  Status SelectModules();
  // The common keys, for ToJson, merging, validation and --help.
  void Declare(OptionSet& set);

  nlohmann::json ToJson() const;
  // The lock client actually used: `client`, or the backend's default.
  std::string ResolvedClient() const;
  // The test name actually used for the store directory.
  std::string ResolvedTestName() const;
  // The chosen nemesis families with their options, for the registry.
  std::vector<ChosenFamily> ChosenNemeses() const;
  // Drops the family `name` and its options (the run found it unfit).
  void DropNemesis(const std::string& name);
  // One warning per key a config file gave for a module this run does not
  // use ("restart_delay_ms applies to nemesis kill, which this run does not
  // use: ignored").
  std::vector<std::string> UnusedKeyWarnings() const;

  // Keys of a file for modules not chosen (yet): applied if a later layer
  // chooses their module, otherwise warned about.
  nlohmann::json unused_keys = nlohmann::json::object();
};

// Checks every field and every chosen module's options; the error is one
// line naming the field (its flag, or "key" when it has none).
Status ValidateRunConfig(const RunConfig& config);

// What a key for a module the run does not use is: an error naming the key
// and its module (the command line: the flag cannot have meant anything), or
// kept aside in unused_keys (a config file: every config.json written before
// options moved into the modules lists every module's keys, and a flag may
// still choose the module, as in `--config old.json --nemesis kill`).
enum class UnusedKeys { kError, kKeep };

// Reads keys of `j` into `config`: the common keys first, then the modules
// they choose, then those modules' keys. Unknown keys and wrong types are
// errors naming the key; keys not present keep their current value.
Status MergeRunConfigJson(const nlohmann::json& j, RunConfig& config,
                          UnusedKeys unused = UnusedKeys::kKeep);
// Loads a scenario/config JSON file into `config` (see MergeRunConfigJson).
// Only a regular file of at most kMaxConfigFileBytes: a FIFO or device
// would block or never end. Errors name the file, and for a number out of
// range (1e400) the key holding it.
Status LoadRunConfigFile(const std::string& path, RunConfig& config);
// The JSON of such a file (comments allowed), with the same limits and
// errors; for files that hold run keys among others (suite files). A
// relative program path in an exec client ("client": {"exec": [...]}) is
// taken from the file's directory.
Result<nlohmann::json> ReadConfigJsonFile(const std::string& path);

}  // namespace locksmith
