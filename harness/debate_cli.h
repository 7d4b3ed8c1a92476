// DebateCli: the command-line wiring of `locksmith debate`
// (harness/debate_command.h), kept out of cli.cc: the subcommand is added to
// the app at construction, Run() runs it when it was parsed. Main thread
// only.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace locksmith {

class DebateCli {
 public:
  explicit DebateCli(CLI::App& app);
  // debate's exit code, nullopt when another subcommand was parsed.
  std::optional<int> Run() const;

 private:
  // The run's flags checked and made options; the exit code on bad input.
  std::optional<int> RunMatrix() const;

  CLI::App* debate_ = nullptr;
  int repeats_ = 0;
  std::string seed_;
  double time_scale_ = 1;
  std::string store_;
  std::string shard_;
  std::vector<std::string> only_;
  std::string matrix_file_;
  std::string from_;
  std::string doc_;
  std::string patch_;
};

}  // namespace locksmith
