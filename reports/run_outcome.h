// RunOutcome: what one `locksmith run` ended with, as data: its directory,
// its verdict (when it was judged), its exit code and why it stopped early or
// failed. The run lifecycle (harness/) returns it; the summary printer
// (summary_printer.h) and, later, suite tables read it. Plain value, not
// thread-safe.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "checker/checker.h"

namespace locksmith {

struct RunOutcome {
  // The run's directory; empty when none was made (the store could not be
  // created), and then nothing was written.
  std::string run_dir;
  // 0 valid, 1 invalid, 2 unknown, 254 bad input, 255 the run failed.
  int exit_code = 0;
  // The verdict on the ops recorded, when the run was judged (every run with
  // a directory is, unless the check itself failed).
  std::optional<CheckResult> result;
  // config.json as written (the summary's debate line reads it).
  nlohmann::json config = nlohmann::json::object();
  // What a signal cut short: the text after "interrupted: " ("by SIGINT
  // after 4.2 s of the 60 s workload; ..."); empty when nothing was.
  std::string interrupted;
  // Why the run failed (exit 254 or 255): "servers: ...", "workload mutex
  // threw: ..."; empty when it did not.
  std::string error;
  // results.json's "faults": the fault ledger (what every planned fault
  // became); null when the run recorded none.
  nlohmann::json faults;
};

}  // namespace locksmith
