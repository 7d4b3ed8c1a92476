#include "harness/run_config.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <regex>
#include <stdexcept>

#include "backends/backend_registry.h"
#include "backends/exec_protocol.h"
#include "base/json_input.h"
#include "base/limits.h"
#include "cluster/ssh_command.h"
#include "workloads/workload_registry.h"

namespace locksmith {
namespace {

// What --nemesis accepts: the presets, then every family.
std::vector<std::string> NemesisPresetsAndNames() {
  std::vector<std::string> names = {"all", "none"};
  for (const auto& name : NemesisNames()) names.push_back(name);
  return names;
}

Status ReadSeed(const nlohmann::json& j, std::optional<uint64_t>& seed) {
  auto it = j.find("seed");
  if (it == j.end() || it->is_null()) return OkStatus();
  if (!it->is_number_unsigned()) return Error{"\"seed\" must be a non-negative integer"};
  seed = it->get<uint64_t>();
  return OkStatus();
}

// A module's options at their defaults, or none for an unknown name.
template <typename Entry>
OwnedOptions DefaultOptions(const Result<const Entry*>& entry) {
  if (!entry) return {};
  return OwnedOptions((*entry)->name, (*entry)->options());
}

// "nemesis kill" for the modules that declare `key` (several may).
std::string OwnersOf(const std::string& key) {
  std::vector<std::string> owners;
  for (const auto& m : ModuleKeys()) {
    if (m.spec.key == key) owners.push_back(m.kind + " " + m.name);
  }
  std::string text;
  for (size_t i = 0; i < owners.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == owners.size() ? " or " : ", ") + owners[i];
  }
  return text;
}

// "--restart-delay (restart_delay_ms)": what a user may have typed.
std::string FlagAndKey(const std::string& key) {
  for (const auto& m : ModuleKeys()) {
    if (m.spec.key == key && !m.spec.flag.empty()) return m.spec.flag + " (" + key + ")";
  }
  return key;
}

// A scenario's predictions agree: Y (two holders) is an invalid verdict, N
// a valid one, and only an invalid one has a kind of anomaly.
Status CheckPredictions(const RunConfig& c) {
  const std::string implied = c.prediction == "Y"   ? "invalid"
                              : c.prediction == "N" ? "valid"
                                                    : "";
  if (!implied.empty() && !c.predicted_verdict.empty() && implied != c.predicted_verdict) {
    return Error{"\"prediction\": " + c.prediction + " means a verdict of " + implied +
                 ", but \"predicted_verdict\" is " + c.predicted_verdict};
  }
  const std::string verdict = c.predicted_verdict.empty() ? implied : c.predicted_verdict;
  if (!c.predicted_anomaly.empty() && verdict != "invalid") {
    return Error{"\"predicted_anomaly\" needs \"predicted_verdict\": \"invalid\""};
  }
  if (std::any_of(c.predicted_anomaly.begin(), c.predicted_anomaly.end(),
                  [](unsigned char ch) { return !std::isalnum(ch) && ch != '-'; })) {
    return Error{"\"predicted_anomaly\" is a kind such as unsafe-grant, not " +
                 QuoteInput(c.predicted_anomaly)};
  }
  return OkStatus();
}

Status ValidateProviderKeys(const RunConfig& c) {
  if (c.provider != "ssh") {
    if (!c.nodes.empty() || !c.nodes_file.empty()) {
      return Error{"--nodes and --nodes-file need --provider ssh"};
    }
    return OkStatus();
  }
  if (c.loopback) return Error{"--loopback is for --provider local"};
  if (c.nodes.empty() == c.nodes_file.empty()) {
    return Error{"--provider ssh needs the nodes: --nodes n1,n2,... or --nodes-file FILE (one)"};
  }
  for (const auto& n : c.nodes) {
    if (Status s = ValidateNodeAddress(n); !s) return Error{"--nodes: " + s.error()};
  }
  if (c.ssh_user.empty() || c.ssh_user.front() == '-') {
    return Error{"--ssh-user " + QuoteInput(c.ssh_user) + " is not a user name"};
  }
  return OkStatus();
}

}  // namespace


const std::vector<ModuleKey>& ModuleKeys() {
  static const std::vector<ModuleKey> keys = [] {
    std::vector<ModuleKey> out;
    auto add = [&](const char* kind, const char* name, OptionsFactory factory) {
      const auto options = factory();
      for (const auto& spec : options->set().Specs()) {
        out.push_back(
            {kind, name, spec, options->set().Help(spec), options->set().DefaultText(spec)});
      }
    };
    for (const auto& e : Backends()) add("backend", e.name, e.options);
    for (const auto& e : Workloads()) add("workload", e.name, e.options);
    for (const auto& e : NemesisFamilies()) add("nemesis", e.name, e.options);
    return out;
  }();
  return keys;
}

// lint: declaration table
void RunConfig::Declare(OptionSet& set) {
  static const std::regex kName("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");
  set.Text("test_name", "--test-name", &test_name, 100,
           "store directory name [default: backend-workload-nemesis]")
      .Text("store", "--store", &store, kMaxStoreBytes, "store root directory")
      .Choice("backend", "--backend", &backend, BackendNames(), "lock backend")
      .Text("client", "--client", &client, kMaxStoreBytes,
            "the backend's lock client [default: the backend's first], or exec:PROGRAM "
            "[ARGS...]: an external program per client (docs/exec-clients.md)")
      .Choice("workload", "--workload", &workload, WorkloadNames(), "workload")
      .Integer("concurrency", "--concurrency", &concurrency, 1, kMaxRunClients,
               "concurrent clients, one connection each")
      .Number("rate", "--rate", &rate, 0, 1e7,
              "total op attempts per second, 0 = as fast as they go")
      .Number("time_limit_s", "--time-limit", &time_limit_s, 0, 86400,
              "seconds of workload, from when every client is connected",
              /*min_exclusive=*/true)
      .Names("nemesis", "--nemesis", &nemesis, NemesisPresetsAndNames(),
             "fault families, comma-separated, each on its own schedule; all: every "
             "family; none by default")
      .Number("nemesis_interval_s", "--nemesis-interval", &nemesis_interval_s, 0.1, 86400,
              "seconds between faults")
      .Integer("client_timeout_ms", "--client-timeout", &client_timeout_ms, int64_t{1},
               int64_t{600'000}, "deadline of every client call, ms; a timeout is info")
      .Choice("fencing", "--fencing", &fencing, {"off", "on"},
              "on: every acquire carries a token that only grows, and the protected resource "
              "(inventory, counter, rw-cache) rejects reads and writes with a token lower than "
              "one it accepted")
      .Flag("loopback", "--loopback", &loopback,
            "use loopback hosts even as root (no network faults)")
      .Choice("provider", "--provider", &provider, {"local", "ssh"},
              "where the hosts are: local (this machine) or ssh (--nodes)")
      .Names("nodes", "--nodes", &nodes, {},
             "--provider ssh: the nodes (host names or addresses), comma-separated, in order")
      .Text("nodes_file", "--nodes-file", &nodes_file, kMaxStoreBytes,
            "--provider ssh: a file naming the nodes, one a line ('#' comments)")
      .Text("ssh_user", "--ssh-user", &ssh_user, 64, "--provider ssh: the nodes' login user")
      .Text("ssh_key", "--ssh-key", &ssh_key, kMaxStoreBytes,
            "--provider ssh: identity file [default: ssh's own]")
      .Integer("ssh_port", "--ssh-port", &ssh_port, 1, 65535, "--provider ssh: the nodes' port")
      .Text("ssh_known_hosts", "--ssh-known-hosts", &ssh_known_hosts, kMaxStoreBytes,
            "--provider ssh: known-hosts file, new keys accepted [default: ssh's own]")
      .Text("scenario", "", &scenario, kMaxScenarioBytes, "the debate row a scenario tests")
      .Choice("prediction", "", &prediction, {"", "Y", "N"},
              "Y: two holders at once possible, N: not")
      .Choice("predicted_verdict", "", &predicted_verdict, {"", "valid", "invalid"},
              "the verdict a scenario predicts")
      .Text("predicted_anomaly", "", &predicted_anomaly, 64,
            "the kind of anomaly a scenario predicts (a class or type the checkers emit)")
      .Text("description", "", &description, kMaxDescriptionBytes, "free text")
      .Json("steps", &steps,
            [this](const nlohmann::json& given) -> Status {
              if (given.is_null()) return OkStatus();
              auto parsed = ParseScenarioSteps(given, NemesisOpNames(), time_limit_s);
              if (!parsed) return Error{"\"steps\": " + parsed.error()};
              return OkStatus();
            },
            "scripted fault steps, instead of the seeded schedule")
      // A letter or digit first: "." and ".." would leave the store directory.
      .Require([this]() -> Status {
        if (!test_name.empty() && !std::regex_match(test_name, kName)) {
          return Error{"--test-name must be 1-100 letters, digits, '.', '_' or '-', starting "
                       "with a letter or digit"};
        }
        if (store.empty()) return Error{"--store must not be empty"};
        if (Status s = ValidateProviderKeys(*this); !s) return s;
        if (FindBackend(backend)) {
          if (auto resolved = ResolveClient(backend, client); !resolved) {
            return Error{resolved.error()};
          }
        }
        if (fencing == "on" && FindBackend(backend)) {
          if (Status s = CheckFencingClient(backend, client); !s) return s;
        }
        if (std::any_of(scenario.begin(), scenario.end(),
                        [](unsigned char ch) { return ch < 0x20 || ch == 0x7f; })) {
          return Error{"\"scenario\" must not contain control characters: " +
                       QuoteInput(scenario)};
        }
        return CheckPredictions(*this);
      });
}

Status RunConfig::SelectModules() {
  const bool preset = std::any_of(nemesis.begin(), nemesis.end(), [](const std::string& name) {
    return name == "all" || name == "none";
  });
  if (preset && nemesis.size() > 1) {
    return Error{"--nemesis all and none stand alone, not in a list of families"};
  }
  if (preset) {
    nemesis_all = nemesis[0] == "all";
    nemesis = nemesis_all ? AllPresetNemesisNames() : std::vector<std::string>{};
  } else if (nemesis != AllPresetNemesisNames()) {
    nemesis_all = false;  // a later layer chose families of its own
  }
  // Scripted steps bring their families along; a bad step is Validate's to
  // report.
  if (!steps.is_null()) {
    if (auto parsed = ParseScenarioSteps(steps, NemesisOpNames(), time_limit_s); parsed) {
      for (const auto& family : FamiliesOfSteps(*parsed)) {
        if (std::find(nemesis.begin(), nemesis.end(), family) == nemesis.end()) {
          nemesis.push_back(family);
        }
      }
    }
  }
  std::vector<OwnedOptions*> made;
  if (!backend_options || backend_options.module() != backend) {
    backend_options = DefaultOptions(FindBackend(backend));
    made.push_back(&backend_options);
  }
  if (!workload_options || workload_options.module() != workload) {
    workload_options = DefaultOptions(FindWorkload(workload));
    made.push_back(&workload_options);
  }
  std::vector<OwnedOptions> families;
  std::vector<bool> fresh;
  for (const auto& name : nemesis) {
    auto kept = std::find_if(nemesis_options.begin(), nemesis_options.end(),
                             [&](const OwnedOptions& o) { return o && o.module() == name; });
    fresh.push_back(kept == nemesis_options.end());
    families.push_back(fresh.back() ? DefaultOptions(FindNemesis(name)) : std::move(*kept));
  }
  nemesis_options = std::move(families);
  for (size_t i = 0; i < fresh.size(); ++i) {
    if (fresh[i]) made.push_back(&nemesis_options[i]);
  }
  // Keys kept from a file for a module not chosen then: this one now.
  for (OwnedOptions* options : made) {
    if (!*options) continue;
    for (const auto& spec : (*options)->set().Specs()) {
      auto it = unused_keys.find(spec.key);
      if (it == unused_keys.end()) continue;
      // Its type is checked now, when it applies.
      if (Status s = (*options)->set().Merge({{spec.key, *it}}); !s) return s;
      unused_keys.erase(it);
    }
  }
  return OkStatus();
}

std::string RunConfig::ResolvedClient() const {
  auto resolved = ResolveClient(backend, client);
  return resolved ? *resolved : client;
}

std::string RunConfig::ResolvedTestName() const {
  if (!test_name.empty()) return test_name;
  std::string name = backend + "-" + workload;
  if (!client.empty() && client != backend) {
    const std::string label = IsExecClient(client) ? ExecClientLabel(client) : client;
    name = backend + "-" + label + "-" + workload;
  }
  if (nemesis_all) return name + "-all";
  for (const auto& n : nemesis) name += "-" + n;
  return name;
}

std::vector<ChosenFamily> RunConfig::ChosenNemeses() const {
  std::vector<ChosenFamily> chosen;
  for (const auto& options : nemesis_options) {
    if (options) chosen.push_back({options.module(), &*options});
  }
  return chosen;
}

void RunConfig::DropNemesis(const std::string& name) {
  for (size_t i = 0; i < nemesis.size(); ++i) {
    if (nemesis[i] != name) continue;
    nemesis.erase(nemesis.begin() + static_cast<std::ptrdiff_t>(i));
    nemesis_options.erase(nemesis_options.begin() + static_cast<std::ptrdiff_t>(i));
    return;
  }
}

std::vector<std::string> RunConfig::UnusedKeyWarnings() const {
  std::vector<std::string> warnings;
  for (const auto& [key, value] : unused_keys.items()) {
    warnings.push_back(key + " applies to " + OwnersOf(key) +
                       ", which this run does not use: ignored");
  }
  return warnings;
}

nlohmann::json RunConfig::ToJson() const {
  // Declare only binds; ToJson reads through the bindings.
  RunConfig& self = const_cast<RunConfig&>(*this);
  OptionSet common;
  self.Declare(common);
  nlohmann::json j = common.ToJson();
  if (nemesis_all) j["nemesis"] = {"all"};
  j["test_name"] = ResolvedTestName();
  j["seed"] = seed ? nlohmann::json(*seed) : nlohmann::json(nullptr);
  for (const OwnedOptions* options : {&backend_options, &workload_options}) {
    if (*options) j.update((*options)->set().ToJson());
  }
  for (const auto& options : nemesis_options) {
    if (options) j.update(options->set().ToJson());
  }
  return j;
}

Status MergeRunConfigJson(const nlohmann::json& given, RunConfig& c, UnusedKeys unused) {
  if (!given.is_object()) return Error{"a config must be a JSON object"};
  // "client": {"exec": [PROGRAM, ARGS...]} is the flag's "exec:PROGRAM ARGS...".
  nlohmann::json rewritten;
  if (auto it = given.find("client"); it != given.end() && it->is_object()) {
    auto text = ExecClientFromJson(*it);
    if (!text) return Error{text.error()};
    rewritten = given;
    rewritten["client"] = *text;
  }
  const nlohmann::json& j = rewritten.is_null() ? given : rewritten;
  OptionSet common;
  c.Declare(common);
  for (const auto& [key, value] : j.items()) {
    if (key == "seed" || common.Find(key) != nullptr) continue;
    if (std::none_of(ModuleKeys().begin(), ModuleKeys().end(),
                     // An init-capture: clang 14 (the fuzz build) captures no binding.
                     [&key = key](const ModuleKey& m) { return m.spec.key == key; })) {
      return Error{"unknown config key " + QuoteInput(key)};
    }
  }
  if (Status s = common.Merge(j); !s) return s;
  if (Status s = ReadSeed(j, c.seed); !s) return s;
  if (Status s = c.SelectModules(); !s) return s;

  std::vector<ModuleOptions*> chosen;
  for (OwnedOptions* options : {&c.backend_options, &c.workload_options}) {
    if (*options) chosen.push_back(&**options);
  }
  for (auto& options : c.nemesis_options) {
    if (options) chosen.push_back(&*options);
  }
  for (ModuleOptions* options : chosen) {
    if (Status s = options->set().Merge(j); !s) return s;
  }
  for (const auto& [key, value] : j.items()) {
    if (key == "seed" || common.Find(key) != nullptr) continue;
    if (std::any_of(chosen.begin(), chosen.end(),
                    [&key = key](ModuleOptions* o) { return o->set().Find(key) != nullptr; })) {
      c.unused_keys.erase(key);  // a later value wins over one kept aside
      continue;
    }
    if (unused == UnusedKeys::kError) {
      return Error{FlagAndKey(key) + " applies to " + OwnersOf(key) +
                   ", which this run does not use"};
    }
    c.unused_keys[key] = value;
  }
  return OkStatus();
}

namespace {

// Every "client": {"exec": [PROGRAM, ...]} in `j`, at any depth (a suite's
// base, matrix and cells): a relative PROGRAM path made absolute from `dir`,
// so a file names its adapter wherever locksmith is started.
void ResolveExecPrograms(nlohmann::json& j, const std::filesystem::path& dir) {
  if (j.is_array()) {
    for (auto& item : j) ResolveExecPrograms(item, dir);
    return;
  }
  if (!j.is_object()) return;
  for (auto& [key, value] : j.items()) {
    if (key == "client" && value.is_object() && value.contains("exec") &&
        value["exec"].is_array() && !value["exec"].empty() && value["exec"][0].is_string()) {
      const std::string program = value["exec"][0].get<std::string>();
      if (program.find('/') != std::string::npos && program.front() != '/') {
        value["exec"][0] = (dir / program).lexically_normal().string();
      }
    } else {
      ResolveExecPrograms(value, dir);
    }
  }
}

}  // namespace

Result<nlohmann::json> ReadConfigJsonFile(const std::string& path) {
  auto j = ReadJsonInputFile(path, kMaxConfigFileBytes, JsonComments::kAllowed);
  if (!j) return j;
  std::error_code ec;
  const auto dir = std::filesystem::absolute(path, ec).parent_path();
  if (!ec) ResolveExecPrograms(*j, dir);
  return j;
}

Status LoadRunConfigFile(const std::string& path, RunConfig& config) {
  auto j = ReadConfigJsonFile(path);
  if (!j) return Error{j.error()};
  Status s = MergeRunConfigJson(*j, config);
  if (!s) return Error{path + ": " + s.error()};
  return OkStatus();
}

Status ValidateRunConfig(const RunConfig& c) {
  OptionSet common;
  const_cast<RunConfig&>(c).Declare(common);  // only binds; Validate reads
  if (Status s = common.Validate(); !s) return s;
  // Every chosen name is known (checked above): each has its options.
  std::vector<const OwnedOptions*> chosen = {&c.backend_options, &c.workload_options};
  for (const auto& options : c.nemesis_options) chosen.push_back(&options);
  if (c.nemesis_options.size() != c.nemesis.size() || c.backend_options.module() != c.backend ||
      c.workload_options.module() != c.workload) {
    throw std::logic_error("RunConfig: modules changed without SelectModules()");
  }
  for (const OwnedOptions* options : chosen) {
    if (Status s = (*options)->set().Validate(); !s) return s;
  }
  // A workload that takes shared (read) locks needs a client that has them.
  if (auto workload = MakeWorkload(c.workload, *c.workload_options); workload) {
    const std::string why = (*workload)->SharedAcquiresBy();
    if (!why.empty()) {
      if (Status s = CheckSharedClient(c.backend, c.client, why); !s) return s;
    }
  }
  return OkStatus();
}

}  // namespace locksmith
