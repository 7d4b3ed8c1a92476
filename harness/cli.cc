#include "harness/cli.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <string_view>
#include <utility>

#include <CLI/CLI.hpp>

#include "base/exit_codes.h"
#include "base/json_input.h"
#include "base/limits.h"
#include "base/terminal_text.h"
#include "checker/check_file.h"
#include "checker/model.h"
#include "cluster/cleanup.h"
#include "cluster/net_plan.h"
#include "cluster/ssh_cluster.h"
#include "harness/debate_cli.h"
#include "harness/export_command.h"
#include "harness/merge_cli.h"
#include "harness/recheck_run.h"
#include "harness/report_command.h"
#include "harness/run.h"
#include "harness/run_flag_table.h"
#include "harness/scenario_library.h"
#include "harness/shard_plan.h"
#include "harness/shrink_cli.h"
#include "harness/signal_watcher.h"
#include "harness/suite_file.h"
#include "harness/suite_runner.h"
#include "harness/trend_cli.h"
#include "history/history_log.h"

namespace locksmith {
namespace {

int BadInput(const std::string& message) {
  std::cerr << "locksmith: " << TerminalSafe(message) << "\n";
  return kExitBadInput;
}

// The flags of `run`: --config and --seed by hand, every other one made
// from a declared option (RunConfig's common keys, then each registered
// module's), kept as given text; only those given override the config file.
struct RunFlags {
  std::string config_file;
  int test_count = 1;  // runs with seeds derived from one: a one-cell suite
  std::string scenario;  // a name in the scenario library
  std::string seed;  // parsed here: CLI11 would wrap "-1" around to 2^64-1
  std::vector<OptionSpec> specs;           // one per generated flag
  std::map<std::string, std::string> text;  // flag -> value given
  std::map<std::string, bool> on;           // switch flag -> given
  bool help_markdown = false;  // print the flags as docs/running.md's table
};

// "backend redis" for every registered module declaring `flag`.
std::string FlagOwners(const std::string& flag) {
  std::string owners;
  for (const auto& m : ModuleKeys()) {
    if (m.spec.flag == flag) owners += (owners.empty() ? "" : ", ") + m.kind + " " + m.name;
  }
  return owners;
}

// A module flag's help: the first declarer's, with the owners. When the
// owners' defaults differ (--read-fraction: 0 for mutex, 0.8 for rw-cache),
// each one's default, not only the first's.
std::string ModuleFlagHelp(const ModuleKey& first) {
  const std::string owners = " (" + FlagOwners(first.spec.flag) + ")";
  std::string defaults;
  bool differ = false;
  for (const auto& m : ModuleKeys()) {
    if (m.spec.flag != first.spec.flag) continue;
    differ |= m.default_text != first.default_text;
    defaults += (defaults.empty() ? "" : ", ") + m.default_text + " for " + m.kind + " " + m.name;
  }
  if (!differ || first.default_text.empty()) return first.help + owners;
  // first.help ends in " [default: <first.default_text>]" (OptionSet::Help).
  const size_t shown = first.default_text.size() + std::string_view(" [default: ]").size();
  return first.help.substr(0, first.help.size() - shown) + " [default: " + defaults + "]" + owners;
}

void AddGeneratedFlag(CLI::App& run, RunFlags& f, const OptionSpec& spec, std::string help,
                      const std::string& group) {
  f.specs.push_back(spec);
  CLI::Option* option = spec.kind == OptionKind::kFlag
                            ? run.add_flag(spec.flag, f.on[spec.flag], help)
                            : run.add_option(spec.flag, f.text[spec.flag], help);
  option->group(group);
  static const std::map<OptionKind, const char*> kTypeNames = {
      {OptionKind::kInteger, "INT"},  {OptionKind::kNumber, "NUMBER"},
      {OptionKind::kText, "TEXT"},    {OptionKind::kChoice, "CHOICE"},
      {OptionKind::kMsRange, "MS"},   {OptionKind::kNames, "NAMES"}};
  if (auto it = kTypeNames.find(spec.kind); it != kTypeNames.end()) option->type_name(it->second);
}

void AddRunFlags(CLI::App& run, RunFlags& f) {
  run.add_option("--scenario", f.scenario, HelpLine(RunOwnFlag("--scenario")));
  run.add_option("--config", f.config_file, HelpLine(RunOwnFlag("--config")))
      ->check(CLI::ExistingFile);
  run.add_option("--seed", f.seed, HelpLine(RunOwnFlag("--seed")));
  run.add_option("--test-count", f.test_count, HelpLine(RunOwnFlag("--test-count")))
      ->check(CLI::Range(1, kMaxTestCount));
  // Hidden (no group): what scripts/gen-flag-doc.sh reads.
  run.add_flag("--help-markdown", f.help_markdown,
               "print every run flag as a Markdown table (docs/running.md's reference)")
      ->group("");
  RunConfig defaults;
  OptionSet common;
  defaults.Declare(common);
  for (const auto& spec : common.Specs()) {
    if (!spec.flag.empty()) AddGeneratedFlag(run, f, spec, common.Help(spec), "Options");
  }
  // A flag two modules declare (same meaning: the registry test checks)
  // is one flag, said to belong to both.
  for (const auto& m : ModuleKeys()) {
    if (m.spec.flag.empty() || f.text.count(m.spec.flag) > 0 || f.on.count(m.spec.flag) > 0) {
      continue;
    }
    AddGeneratedFlag(run, f, m.spec, ModuleFlagHelp(m), "Options of " + m.kind + " modules");
  }
}

// Overrides from flags that were given, as config JSON keys.
Result<nlohmann::json> GivenFlags(const CLI::App& run, const RunFlags& f) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& spec : f.specs) {
    if (run.count(spec.flag) == 0) continue;
    const bool is_switch = spec.kind == OptionKind::kFlag;
    auto value = FlagValue(spec, is_switch ? "" : f.text.at(spec.flag));
    if (!value) return Error{value.error()};
    j[spec.key] = *value;
  }
  if (run.count("--seed") > 0) {
    auto seed = ParseSeedFlag(f.seed);
    if (!seed) return Error{seed.error()};
    j["seed"] = *seed;
  }
  return j;
}

std::vector<std::string> SubcommandList(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    names.push_back(sub->get_name());
  }
  return names;
}

// "run, check, cleanup": the subcommands `app` knows, for errors.
std::string SubcommandNames(const CLI::App& app) { return JoinNames(SubcommandList(app)); }

// `locksmith cleanup`'s flags: the local provider's options, or the nodes
// of the ssh provider.
struct CleanupFlags {
  CleanupOptions local;
  std::string provider = "local";
  std::string nodes, nodes_file;
  SshOptions ssh;
};

int RunCleanup(const CleanupFlags& flags) {
  const CleanupOptions& options = flags.local;
  if (!options.only_tag.empty()) {
    if (Status s = ValidateTag(options.only_tag); !s) return BadInput("--tag: " + s.error());
  }
  CleanupReport report;
  if (flags.provider == "ssh") {
    if (flags.nodes.empty() == flags.nodes_file.empty()) {
      return BadInput("cleanup --provider ssh needs --nodes n1,n2,... or --nodes-file FILE");
    }
    auto nodes = flags.nodes.empty() ? ReadNodesFile(flags.nodes_file) : ParseNodeList(flags.nodes);
    if (!nodes) return BadInput(nodes.error());
    report = CleanupSshLeftovers(std::cout, {*nodes, flags.ssh, options.only_tag});
  } else if (!flags.nodes.empty() || !flags.nodes_file.empty()) {
    return BadInput("--nodes and --nodes-file need --provider ssh");
  } else {
    report = CleanupLeftovers(std::cout, options);
  }
  if (!report.failed.empty()) {
    std::cerr << "locksmith: cleanup incomplete:";
    for (const auto& f : report.failed) std::cerr << "\n  " << TerminalSafe(f);
    std::cerr << "\n";
    return kExitRunFailed;
  }
  if (!report.left.empty()) {
    std::cerr << "locksmith: cleanup left " << report.left.size()
              << " thing(s) in place (listed above)\n";
    return kExitCleanupLeftSome;
  }
  return 0;
}

struct CheckFlags {
  std::string path, model, initial, format, leases = "auto";
  double timeout_s = 10;
  uint64_t max_history_mb = kDefaultMaxHistoryBytes >> 20;
  bool all_anomalies = false;
};

// --max-history-mb: how much of a history `check` and `report` read.
CLI::Option* AddMaxHistoryFlag(CLI::App& command, uint64_t& mb) {
  return command
      .add_option("--max-history-mb", mb,
                  "refuse a history file larger than this many MiB; a history is read whole "
                  "and its ops kept in memory (about 4x the file's size) [default: " +
                      std::to_string(kDefaultMaxHistoryBytes >> 20) + "]")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 24));
}

int RunCheck(const CLI::App& check, const CheckFlags& f) {
  struct stat st {};
  if (::stat(f.path.c_str(), &st) != 0) return BadInput("no such file or directory: " + f.path);
  if (S_ISDIR(st.st_mode) && f.model.empty()) {
    // A run directory is judged by its workload's checkers, with their own
    // options: a flag for a history file would be silently ignored here.
    for (const char* flag : {"--format", "--initial", "--leases", "--timeout", "--all-anomalies"}) {
      if (check.count(flag) > 0) {
        return BadInput(std::string(flag) + " applies to a history file, not to a run directory " +
                        "(judged by its workload's checkers); to use it, give --model (checks " +
                        RunHistoryFile(f.path) + ")");
      }
    }
    const int code = RecheckRun(f.path, std::cout, f.max_history_mb << 20);
    // A verdict judged again is the store index's to show.
    if (auto root = StoreRootOf(f.path); root && code != kExitBadInput) {
      UpdateStoreIndex(*root, std::cerr);
    }
    return code;
  }
  if (f.model.empty()) {
    return BadInput("checking a history file needs --model (or give a run directory)");
  }
  LinearizabilityOptions options;
  options.model = f.model;
  options.format = f.format;
  options.timeout_s = f.timeout_s;
  options.max_history_bytes = f.max_history_mb << 20;
  options.all_anomalies = f.all_anomalies;
  auto leases = ParseLeaseRule(f.leases);
  if (!leases) return BadInput(leases.error());
  options.leases = *leases;
  if (check.count("--initial")) {
    const std::string text = f.initial == "nil" ? "null" : f.initial;
    auto value = ParseJsonInput(text);
    if (!value) {
      return BadInput("--initial must be a JSON value or nil, not " + QuoteInput(f.initial) +
                      " (" + value.error() + ")");
    }
    options.initial = *value;
  }
  std::string path = f.path;
  if (S_ISDIR(st.st_mode)) path = RunHistoryFile(path);
  auto result = CheckHistoryFile(path, options);
  if (!result) return BadInput(result.error());
  std::cout << FormatLinearizabilityVerdict(*result);
  return ExitCodeFor(result->valid);
}

CLI::App* AddCheckCommand(CLI::App& app, CheckFlags& check_flags) {
  CLI::App* check = app.add_subcommand(
      "check",
      "check a stored run directory again, or a history file (history.jsonl, Jepsen EDN or log) "
      "for linearizability with --model");
  check->add_option("path", check_flags.path, "run directory or history file")->required();
  std::string models;
  for (const auto& name : ModelNames()) models += (models.empty() ? "" : " | ") + name;
  check->add_option("--model", check_flags.model, models);
  check->add_option("--initial", check_flags.initial, "initial value (JSON or nil)");
  check->add_option("--format", check_flags.format, "edn | jepsen-log | jsonl [default: detect]");
  check->add_option("--timeout", check_flags.timeout_s,
                    "seconds each key's search may take before its verdict is unknown "
                    "[default: 10]");
  check->add_option("--leases", check_flags.leases,
                    "auto | on | off: a failed release is a lease that expires later (auto: when "
                    "the history records leases, as locksmith's do) [default: auto]");
  check->add_flag("--all-anomalies", check_flags.all_anomalies,
                  "search every key even once one is refuted, to report each refuted key "
                  "(by default the verdict is given at the first, the others not searched)");
  AddMaxHistoryFlag(*check, check_flags.max_history_mb);
  return check;
}

CLI::App* AddExportCommand(CLI::App& app, ExportOptions& options, uint64_t& max_history_mb) {
  CLI::App* command = app.add_subcommand(
      "export",
      "write a run's history (its history.bin) or any history file check reads as JSON Lines, "
      "the interchange format (docs/history-format.md)");
  command->add_option("path", options.input, "run directory or history file")->required();
  command->add_option("-o,--output", options.output,
                      "write to this file (whole, then renamed) [default: stdout]");
  command->add_option("--format", options.format, "jsonl [default: jsonl]");
  AddMaxHistoryFlag(*command, max_history_mb);
  return command;
}

CLI::App* AddReportCommand(CLI::App& app, std::string& dir, uint64_t& max_history_mb) {
  CLI::App* command = app.add_subcommand(
      "report",
      "write a run's report.html again from its history.jsonl, results.json and config.json "
      "(without re-judging: see check), or every run's report and the tables of a suite "
      "directory; then the store's index.html");
  command->add_option("dir", dir, "run directory or suite directory")->required();
  AddMaxHistoryFlag(*command, max_history_mb);
  return command;
}

CLI::App* AddCleanupCommand(CLI::App& app, CleanupFlags& flags) {
  CleanupOptions& cleanup_options = flags.local;
  CLI::App* cleanup = app.add_subcommand(
      "cleanup",
      "remove namespaces, bridges, veths and processes that killed runs left behind. Exit "
      "codes: 0 nothing of a dead run is left, 1 something was found and left in place "
      "(unregistered objects without --remove-unregistered, an unreadable run record), 255 a "
      "removal failed");
  cleanup->add_flag("--remove-unregistered", cleanup_options.remove_unregistered,
                    "also remove lsm-<tag>-* namespaces and links that no run record claims "
                    "(e.g. the record was deleted), and kill what runs in those namespaces; "
                    "only when no run with another state directory is running");
  cleanup->add_option("--tag", cleanup_options.only_tag,
                      "only the run with this tag (6 characters, as in its locksmith.log)");
  cleanup->add_option("--provider", flags.provider, "local (this machine) or ssh (--nodes)")
      ->check(CLI::IsMember({"local", "ssh"}));
  cleanup->add_option("--nodes", flags.nodes, "--provider ssh: the nodes, comma-separated");
  cleanup->add_option("--nodes-file", flags.nodes_file, "--provider ssh: a file of nodes");
  cleanup->add_option("--ssh-user", flags.ssh.user, "--provider ssh: login user [root]");
  cleanup->add_option("--ssh-key", flags.ssh.key, "--provider ssh: identity file");
  cleanup->add_option("--ssh-port", flags.ssh.port, "--provider ssh: port [22]")
      ->check(CLI::Range(1, 65535));
  cleanup->add_option("--ssh-known-hosts", flags.ssh.known_hosts,
                      "--provider ssh: known-hosts file, new keys accepted");
  return cleanup;
}

// `locksmith run`: the config from the scenario or file, then the flags.
int RunRun(const CLI::App& run, RunFlags& run_flags) {
  if (run_flags.help_markdown) {
    std::cout << MarkdownFlagTable(RunFlagRows());
    return 0;
  }
  if (!run_flags.scenario.empty()) {
    if (!run_flags.config_file.empty()) return BadInput("give --scenario or --config, not both");
    auto path = ScenarioPath(run_flags.scenario);
    if (!path) return BadInput(path.error());
    run_flags.config_file = *path;
  }
  RunConfig config;
  if (!run_flags.config_file.empty()) {
    if (Status s = LoadRunConfigFile(run_flags.config_file, config); !s) return BadInput(s.error());
  }
  auto overrides = GivenFlags(run, run_flags);
  if (!overrides) return BadInput(overrides.error());
  // A flag for a module the run does not use cannot have meant anything.
  if (Status s = MergeRunConfigJson(*overrides, config, UnusedKeys::kError); !s) {
    return BadInput(s.error());
  }
  if (Status s = ValidateRunConfig(config); !s) return BadInput(s.error());
  for (const auto& warning : config.UnusedKeyWarnings()) {
    std::cerr << "locksmith: warning: " << TerminalSafe(run_flags.config_file + ": " + warning)
              << "\n";
  }
  if (run_flags.test_count > 1) {
    Suite suite;
    suite.name = config.ResolvedTestName();
    suite.description = config.description;
    suite.seed = config.seed;
    suite.cells.push_back({config.ResolvedTestName(), run_flags.scenario, config,
                           run_flags.test_count});
    SignalWatcher signals;  // before any thread starts
    return RunSuite(suite, signals, std::cout);
  }
  SignalWatcher signals;  // before any thread starts
  return RunTest(config, signals, std::cout);
}

struct SuiteFlags {
  std::string file;
  double time_limit_s = 0;
  double time_scale = 1;
  int test_count = 1;
  std::string store;
  std::string seed;
  std::string shard;  // "I/N" or "auto"
};

// `locksmith suite FILE`: every cell checked before the first run starts.
int RunSuiteCommand(const CLI::App& command, const SuiteFlags& f) {
  SuiteOverrides overrides;
  if (command.count("--time-limit") > 0) overrides.time_limit_s = f.time_limit_s;
  if (command.count("--time-scale") > 0) {
    if (overrides.time_limit_s) return BadInput("give --time-limit or --time-scale, not both");
    if (Status s = CheckTimeScale(f.time_scale); !s) return BadInput(s.error());
    overrides.time_scale = f.time_scale;
  }
  if (command.count("--test-count") > 0) overrides.test_count = f.test_count;
  if (command.count("--store") > 0) overrides.store = f.store;
  if (command.count("--seed") > 0) {
    auto seed = ParseSeedFlag(f.seed);
    if (!seed) return BadInput(seed.error());
    overrides.seed = *seed;
  }
  std::optional<ShardSpec> shard;
  if (command.count("--shard") > 0) {
    auto spec = f.shard == "auto" ? ShardFromEnvironment(::getenv) : ParseShardSpec(f.shard);
    if (!spec) return BadInput(spec.error());
    shard = *spec;
  }
  auto suite = LoadSuiteFile(f.file, overrides);
  if (!suite) return BadInput(suite.error());
  SignalWatcher signals;  // before any thread starts
  return RunSuite(*suite, signals, std::cout, shard);
}

CLI::App* AddSuiteCommand(CLI::App& app, SuiteFlags& f) {
  CLI::App* suite = app.add_subcommand(
      "suite",
      "run a suite file's matrix of runs (backends x clients x workloads x nemeses x repeats, "
      "and scenarios) one after another; writes index.html, summary.json and junit.xml under "
      "STORE/suites/NAME/; exits with the worst run's code (a crash, then invalid, then "
      "unknown); Ctrl-C stops it after the current run's teardown");
  suite->add_option("file", f.file, "suite file (JSON; see suites/)")->required();
  suite->add_option("--time-limit", f.time_limit_s, "seconds of workload of every run")
      ->check(CLI::Range(0.0, 86400.0));
  suite->add_option("--time-scale", f.time_scale,
                    "multiplies every run's time limit and fault interval (0.1: a tenth), not "
                    "how long each fault, hold or lease lasts; cells with scripted steps keep "
                    "their timing");
  suite->add_option("--test-count", f.test_count, "runs of every cell [default: the file's]")
      ->check(CLI::Range(1, kMaxTestCount));
  suite->add_option("--store", f.store, "store root of every run [default: each cell's]");
  suite->add_option("--seed", f.seed, "the suite's seed [default: the file's, or random]");
  suite->add_option("--shard", f.shard,
                    "I/N: run only shard I of N's share of the runs (balanced by planned time, "
                    "each with its seed in the whole suite; needs a seed), for `locksmith merge`; "
                    "auto: I/N from CI_NODE_INDEX/CI_NODE_TOTAL (GitLab) or LOCKSMITH_SHARD");
  return suite;
}

// `locksmith scenarios`: the library's scenarios, one a line.
int RunScenarios() {
  auto list = ListScenarios();
  if (!list) return BadInput(list.error());
  PrintScenarios(std::cout, *list);
  return 0;
}

}  // namespace

int CliMain(int argc, char** argv) {
  CLI::App app{"locksmith: a Jepsen-style correctness and fault-injection harness for distributed locks"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "help for every subcommand");

  RunFlags run_flags;
  CLI::App* run = app.add_subcommand(
      "run",
      "start a cluster, run a workload with faults, check it. Ctrl-C / SIGTERM stops it: the "
      "verdict covers the ops before the signal (exit 2 when none ran), and stdout, "
      "results.json and junit.xml say it was interrupted");

  CheckFlags check_flags;
  CLI::App* check = AddCheckCommand(app, check_flags);

  CleanupFlags cleanup_flags;
  CLI::App* cleanup = AddCleanupCommand(app, cleanup_flags);

  SuiteFlags suite_flags;
  CLI::App* suite = AddSuiteCommand(app, suite_flags);
  MergeCli merge_cli(app);  // and debate: suites too
  DebateCli debate_cli(app);

  std::string report_dir;
  uint64_t report_max_history_mb = kDefaultMaxHistoryBytes >> 20;
  CLI::App* report = AddReportCommand(app, report_dir, report_max_history_mb);

  ExportOptions export_options;
  uint64_t export_max_history_mb = kDefaultMaxHistoryBytes >> 20;
  CLI::App* export_command = AddExportCommand(app, export_options, export_max_history_mb);

  CLI::App* scenarios = app.add_subcommand(
      "scenarios", "list the scenario library (run one with locksmith run --scenario NAME)");

  TrendCli trend_cli(app);  // trend, compare, store prune
  ShrinkCli shrink_cli(app);

  // CLI11 calls a stray word "A subcommand is required": name it instead.
  if (argc < 2) {
    return BadInput("a subcommand is required: " + SubcommandNames(app) + " (see --help)");
  }
  const std::vector<std::string> known = SubcommandList(app);
  if (const std::string first = argv[1];
      !first.empty() && first[0] != '-' &&
      std::find(known.begin(), known.end(), first) == known.end()) {
    return BadInput("unknown subcommand " + QuoteInput(first) + " (known: " +
                    SubcommandNames(app) + ")");
  }
  // Declaring run's flags (over a hundred, each checked against the others)
  // was a quarter of the start-up of every command: only when the command
  // may be run, or its help is asked for (--help-all).
  if (std::string_view(argv[1]) == "run" || argv[1][0] == '-') AddRunFlags(*run, run_flags);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // CLI11 messages are one line; keep ours in the same shape.
    return BadInput(e.what());
  }

  if (run->parsed()) return RunRun(*run, run_flags);
  if (check->parsed()) return RunCheck(*check, check_flags);
  if (cleanup->parsed()) return RunCleanup(cleanup_flags);
  if (suite->parsed()) return RunSuiteCommand(*suite, suite_flags);
  if (auto code = merge_cli.Run()) return *code;
  if (auto code = debate_cli.Run()) return *code;
  if (report->parsed()) {
    return RegenerateReports(report_dir, std::cout, std::cerr, report_max_history_mb << 20);
  }
  if (export_command->parsed()) {
    export_options.max_history_bytes = export_max_history_mb << 20;
    return ExportHistory(export_options, std::cout, std::cerr);
  }
  if (auto code = trend_cli.Run()) return *code;
  if (auto code = shrink_cli.Run()) return *code;
  if (scenarios->parsed()) return RunScenarios();
  return BadInput("no subcommand");
}

}  // namespace locksmith
