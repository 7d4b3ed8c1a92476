#include "harness/suite_runner.h"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <random>

#include "base/atomic_file.h"
#include "base/exit_codes.h"
#include "base/scope_exit.h"
#include "base/terminal_text.h"
#include "base/text.h"
#include "harness/report_command.h"
#include "harness/run.h"
#include "harness/run_store.h"
#include "harness/shard_record.h"
#include "harness/signal_watcher.h"
#include "reports/escape.h"

namespace locksmith {
namespace {

namespace fs = std::filesystem;

// A run's row: what its directory holds, or why it has none.
SuiteRun RowOf(const SuiteCell& cell, int repeat, uint64_t seed, const RunOutcome& outcome,
               const std::string& suite_dir) {
  // The verdict in memory: what results.json holds but the run's extras
  // (the fault ledger among them, which the outcome carries).
  nlohmann::json results = outcome.result ? outcome.result->ToJson() : nlohmann::json();
  if (outcome.result && !outcome.faults.is_null()) results["faults"] = outcome.faults;
  SuiteRun row = SuiteRunFrom(results, outcome.config);
  row.cell = cell.name;
  row.repeat = repeat;
  row.seed = seed;
  row.exit_code = outcome.exit_code;
  // Why it failed, stopped early, or did not do all it was asked.
  if (!outcome.error.empty() || !outcome.interrupted.empty()) {
    row.error = !outcome.error.empty() ? outcome.error : outcome.interrupted;
  }
  if (!outcome.run_dir.empty()) {
    std::error_code ec;
    row.dir = fs::relative(outcome.run_dir, suite_dir, ec).string();
    if (ec) row.dir = outcome.run_dir;
  }
  if (!cell.scenario.empty()) row.schedule = "scenario " + cell.scenario;
  return row;
}

// The record of a suite about to run: its cells and runs planned (the
// shard's, when it is one), and its seed (the suite's, or a random one).
SuiteRecord PlannedRecord(const Suite& suite, const std::optional<ShardSpec>& shard) {
  SuiteRecord record;
  record.name = suite.name;
  record.description = suite.description;
  if (suite.seed) {
    record.seed = *suite.seed;
  } else {
    std::random_device entropy;
    record.seed = (uint64_t{entropy()} << 32) | entropy();
  }
  for (const auto& cell : suite.cells) record.cells.push_back(cell.name);
  const std::vector<PlannedRun> plan = PlanSuiteRuns(suite, record.seed);
  record.planned_runs = static_cast<int>(shard ? ShardRuns(plan, *shard).size() : plan.size());
  return record;
}

// False, with outcome.error saying why, when the reports cannot be written.
bool WriteReports(SuiteOutcome& outcome) {
  if (Status s = WriteSuiteReports(outcome.record, outcome.dir); !s) {
    outcome.error = "suite reports: " + s.error();
    return false;
  }
  return true;
}

// shard.json: what a merge needs to know of the shard (harness/shard_record.h).
bool WriteShardRecord(const Suite& suite, const ShardSpec& shard, SuiteOutcome& outcome) {
  const ShardRecord record = MakeShardRecord(suite, outcome.record.seed, shard);
  const std::string text = DumpJson(ShardRecordJson(record), 2) + "\n";
  if (Status s = WriteFileAtomically(outcome.dir + "/shard.json", text); !s) {
    outcome.error = "shard record: " + s.error();
    return false;
  }
  return true;
}

// The runs of a suite, one after another into its directory, its reports
// rewritten after each; a signal stops it between runs or during one.
class SuiteRuns {
 public:
  SuiteRuns(const Suite& suite, SignalWatcher& signals, const RunModules& modules,
            std::ostream& out, SuiteOutcome& outcome)
      : suite_(suite), signals_(signals), modules_(modules), out_(out), outcome_(outcome),
        record_(outcome.record) {}

  // `runs` in order (the suite's, or a shard's share of it). False when the
  // reports could not be written after a run.
  bool RunAll(const std::vector<PlannedRun>& runs) {
    for (const PlannedRun& run : runs) {
      if (signals_.interrupted()) {
        record_.interrupted = "by a signal before run " + std::to_string(done_ + 1) + " of " +
                              std::to_string(record_.planned_runs);
        break;
      }
      RunOne(suite_.cells[run.cell], run.seed, run.repeat);
      if (!record_.interrupted.empty()) break;
      if (!WriteReports(outcome_)) return false;
    }
    return true;
  }

 private:
  void RunOne(const SuiteCell& cell, uint64_t seed, int repeat) {
    RunConfig config = cell.config;
    config.store = outcome_.dir;
    config.test_name = cell.name;
    config.seed = seed;
    ++done_;
    out_ << "suite " << TerminalSafe(suite_.name) << ": run " << done_ << " of "
         << record_.planned_runs << ": " << TerminalSafe(cell.name) << " #" << repeat << " seed "
         << seed << "\n"
         << std::flush;
    const RunOutcome run =
        ExecuteRun(std::move(config), signals_, modules_,
                   "run " + std::to_string(done_) + "/" + std::to_string(record_.planned_runs) +
                       " " + cell.name);
    record_.runs.push_back(RowOf(cell, repeat, seed, run, outcome_.dir));
    const SuiteRun& row = record_.runs.back();
    out_ << TerminalSafe("suite " + suite_.name + ": " + cell.name + " #" +
                         std::to_string(repeat) + ": " + row.verdict +
                         (row.error.empty() ? "" : " (" + row.error + ")"))
         << "\n"
         << std::flush;
    if (!run.interrupted.empty()) {
      record_.interrupted = "by a signal during " + cell.name + " #" + std::to_string(repeat) +
                            " (run " + std::to_string(done_) + " of " +
                            std::to_string(record_.planned_runs) + ")";
    }
  }

  const Suite& suite_;
  SignalWatcher& signals_;
  const RunModules& modules_;
  std::ostream& out_;
  SuiteOutcome& outcome_;
  SuiteRecord& record_;
  int done_ = 0;  // runs started
};

}  // namespace

SuiteOutcome ExecuteSuite(const Suite& suite, SignalWatcher& signals, const RunModules& modules,
                          std::ostream& out, const std::optional<ShardSpec>& shard) {
  SuiteOutcome outcome;
  if (shard && !suite.seed) {
    outcome.exit_code = kExitBadInput;
    outcome.error = "--shard needs the seed every shard shares: the suite file's \"seed\" or "
                    "--seed (a CI pipeline's id serves)";
    return outcome;
  }
  outcome.record = PlannedRecord(suite, shard);
  if (shard) outcome.shard = shard->Text();
  const std::string store = suite.cells.front().config.store;
  auto dir = CreateStampedDirectory(store + "/suites", suite.name);
  if (!dir) {
    outcome.exit_code = kExitRunFailed;
    outcome.error = dir.error();
    return outcome;
  }
  outcome.dir = *dir;
  if (!WriteReports(outcome) || (shard && !WriteShardRecord(suite, *shard, outcome))) {
    outcome.exit_code = kExitRunFailed;
    return outcome;
  }
  // The store's index lists the suite from its start, and its verdict at the end.
  UpdateStoreIndex(store, std::cerr);
  ScopeExit index_at_end([&] { UpdateStoreIndex(store, std::cerr); });
  std::vector<PlannedRun> runs = PlanSuiteRuns(suite, outcome.record.seed);
  if (shard) runs = ShardRuns(runs, *shard);
  if (!SuiteRuns(suite, signals, modules, out, outcome).RunAll(runs) || !WriteReports(outcome)) {
    outcome.exit_code = kExitRunFailed;
    return outcome;
  }
  std::vector<int> codes;
  for (const auto& r : outcome.record.runs) codes.push_back(r.exit_code);
  outcome.exit_code = WorstExitCode(codes);
  return outcome;
}

void PrintSuiteRates(const SuiteRecord& record, const std::string& dir, std::ostream& out) {
  for (const auto& cell : record.cells) {
    std::vector<const SuiteRun*> of;
    for (const auto& r : record.runs) {
      if (r.cell == cell) of.push_back(&r);
    }
    if (of.empty()) continue;
    const RunGroup g = Summarize(of);
    out << "  " << TerminalSafe(cell) << ": " << RateText(g);
    if (g.median_first_violation_s) {
      out << ", median time to the first violation "
          << FormatDurationNs(*g.median_first_violation_s * 1e9);
    }
    if (g.judged < g.runs) out << "; " << g.runs - g.judged << " not judged";
    out << "\n";
  }
  out << "index: " << TerminalSafe(dir) << "/index.html\n";
}

void PrintSuiteSummary(const SuiteOutcome& outcome, std::ostream& out) {
  const SuiteRecord& record = outcome.record;
  out << "\nsuite " << TerminalSafe(record.name) << " (seed " << record.seed
      << (outcome.shard.empty() ? "" : ", shard " + outcome.shard) << "): " << record.runs.size()
      << " of " << record.planned_runs << " runs"
      << (record.interrupted.empty() ? "" : ", interrupted " + record.interrupted) << "\n";
  PrintSuiteRates(record, outcome.dir, out);
}

int RunSuite(const Suite& suite, SignalWatcher& signals, std::ostream& out,
             const std::optional<ShardSpec>& shard) {
  SuiteOutcome outcome = ExecuteSuite(suite, signals, DefaultRunModules(), out, shard);
  if (!outcome.error.empty()) {
    std::cerr << "locksmith: " << TerminalSafe(outcome.error) << "\n";
    return outcome.exit_code;
  }
  PrintSuiteSummary(outcome, out);
  return outcome.exit_code;
}

}  // namespace locksmith
