// ShrinkCli: the command-line wiring of `locksmith shrink RUN_DIR`
// (harness/shrink_command.h), kept out of cli.cc: the subcommand is added to
// the app at construction, Run() runs it when it was parsed. Main thread
// only.
#pragma once

#include <optional>

#include <CLI/CLI.hpp>

#include "harness/shrink_command.h"

namespace locksmith {

class ShrinkCli {
 public:
  explicit ShrinkCli(CLI::App& app);
  // shrink's exit code, nullopt when another subcommand was parsed.
  std::optional<int> Run();

 private:
  CLI::App* shrink_ = nullptr;
  ShrinkOptions options_;
};

}  // namespace locksmith
