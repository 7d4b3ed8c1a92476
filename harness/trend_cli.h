// TrendCli: the command-line wiring of `locksmith trend`, `locksmith
// compare` and `locksmith store prune` (harness/trend_command.h,
// harness/store_prune.h), kept out of cli.cc: the subcommands are added to
// the app at construction, Run() runs the one parsed. Main thread only.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace locksmith {

class TrendCli {
 public:
  explicit TrendCli(CLI::App& app);
  // The exit code of the subcommand parsed, nullopt when none of these was.
  std::optional<int> Run() const;

 private:
  CLI::App* trend_ = nullptr;
  CLI::App* compare_ = nullptr;
  CLI::App* prune_ = nullptr;
  std::string trend_out_;
  std::vector<std::string> trend_inputs_;
  std::string compare_old_, compare_new_;
  bool compare_json_ = false;
  std::string store_root_ = "store";
  int keep_ = 0;
  double keep_days_ = 0;
};

}  // namespace locksmith
