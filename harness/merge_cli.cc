#include "harness/merge_cli.h"

#include <iostream>

#include "harness/suite_merge.h"

namespace locksmith {

MergeCli::MergeCli(CLI::App& app) {
  merge_ = app.add_subcommand(
      "merge",
      "make one suite directory OUT of the directories of a suite's shards (suite --shard "
      "I/N): index.html, summary.json and junit.xml over every run, each run's directory under "
      "OUT; exits with the worst run's code, 254 for shards that do not make one suite");
  merge_->add_option("out", out_, "the merged suite's directory (new or empty)")->required();
  merge_->add_option("shards", shards_, "every shard's suite directory")->required();
}

std::optional<int> MergeCli::Run() const {
  if (!merge_->parsed()) return std::nullopt;
  return RunMerge(out_, shards_, std::cout, std::cerr);
}

}  // namespace locksmith
