#include "harness/debate_cli.h"

#include <cstdlib>
#include <iostream>

#include "base/exit_codes.h"
#include "base/terminal_text.h"
#include "harness/debate_command.h"
#include "harness/signal_watcher.h"
#include "harness/suite_file.h"

namespace locksmith {
namespace {

int DebateBadInput(const std::string& message) {
  std::cerr << "locksmith: " << TerminalSafe(message) << "\n";
  return kExitBadInput;
}

}  // namespace

DebateCli::DebateCli(CLI::App& app) : repeats_(kDefaultDebateRepeats) {
  debate_ = app.add_subcommand(
      "debate",
      "run every scenario of the library K times as the suite \"debate\" (it shards and merges "
      "as any suite) and write the debate matrix, debate.html and debate.json, beside its "
      "index: the debate's rows down, the locks across, per scenario its prediction, k of K "
      "invalid with the Wilson interval, agreement, median time to the first violation and the "
      "invalid runs' reports and replay commands. --from DIR writes the matrix of a suite "
      "directory again (a merged one too); --doc JSON prints docs/debate.md's tables of a "
      "stored debate.json (--patch MD puts them between MD's markers). Exit 0 every scenario "
      "agrees with its prediction, 1 one disagrees, 2 one is undecided");
  debate_->add_option("--repeats", repeats_, "runs of every scenario [default: 20]")
      ->check(CLI::Range(1, 1000));
  debate_->add_option("--seed", seed_, "the suite's seed [default: random]");
  debate_->add_option("--time-scale", time_scale_,
                      "multiplies the time limit and fault interval of every scenario without "
                      "scripted steps (those keep their timing), as suite's does");
  debate_->add_option("--store", store_, "store root [default: store]");
  debate_->add_option("--shard", shard_,
                      "I/N or auto: only shard I of N's share of the runs (needs --seed), for "
                      "locksmith merge, then debate --from the merged directory");
  debate_->add_option("--only", only_, "only these scenarios (comma-separated names)")
      ->delimiter(',');
  debate_->add_option("--matrix", matrix_file_,
                      "the matrix's rows, columns and cells that cannot run [default: "
                      "scenarios/debate/matrix.json of the library]");
  debate_->add_option("--from", from_, "write the matrix of this suite directory again");
  debate_->add_option("--doc", doc_, "print docs/debate.md's tables of this debate.json");
  debate_->add_option("--patch", patch_, "with --doc: write them between this file's markers");
}

std::optional<int> DebateCli::Run() const {
  if (!debate_->parsed()) return std::nullopt;
  const bool run_flags = debate_->count("--repeats") + debate_->count("--seed") +
                             debate_->count("--time-scale") + debate_->count("--store") +
                             debate_->count("--shard") + debate_->count("--only") >
                         0;
  if (!doc_.empty()) {
    if (run_flags || !from_.empty() || debate_->count("--matrix") > 0) {
      return DebateBadInput("--doc takes only --patch");
    }
    return RunDebateDoc(doc_, patch_, std::cout, std::cerr);
  }
  if (!patch_.empty()) return DebateBadInput("--patch needs --doc");
  if (!from_.empty()) {
    if (run_flags) return DebateBadInput("--from takes only --matrix: it runs nothing");
    return RunDebateFrom(from_, matrix_file_, std::cout, std::cerr);
  }
  return RunMatrix();
}

std::optional<int> DebateCli::RunMatrix() const {
  DebateOptions options;
  options.repeats = repeats_;
  options.only = only_;
  options.matrix_file = matrix_file_;
  if (debate_->count("--store") > 0) options.store = store_;
  if (debate_->count("--time-scale") > 0) {
    if (Status s = CheckTimeScale(time_scale_); !s) return DebateBadInput(s.error());
    options.time_scale = time_scale_;
  }
  if (debate_->count("--seed") > 0) {
    auto seed = ParseSeedFlag(seed_);
    if (!seed) return DebateBadInput(seed.error());
    options.seed = *seed;
  }
  if (debate_->count("--shard") > 0) {
    auto spec = shard_ == "auto" ? ShardFromEnvironment(::getenv) : ParseShardSpec(shard_);
    if (!spec) return DebateBadInput(spec.error());
    options.shard = *spec;
  }
  SignalWatcher signals;  // before any thread starts
  return RunDebate(options, signals, std::cout, std::cerr);
}

}  // namespace locksmith
