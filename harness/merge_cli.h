// MergeCli: the command-line wiring of `locksmith merge OUT SHARD_DIR...`
// (harness/suite_merge.h), kept out of cli.cc: the subcommand is added to
// the app at construction, Run() runs it when it was parsed. Main thread
// only.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace locksmith {

class MergeCli {
 public:
  explicit MergeCli(CLI::App& app);
  // merge's exit code, nullopt when another subcommand was parsed.
  std::optional<int> Run() const;

 private:
  CLI::App* merge_ = nullptr;
  std::string out_;
  std::vector<std::string> shards_;
};

}  // namespace locksmith
