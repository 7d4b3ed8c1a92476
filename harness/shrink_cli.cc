#include "harness/shrink_cli.h"

#include <iostream>

#include "harness/signal_watcher.h"

namespace locksmith {

ShrinkCli::ShrinkCli(CLI::App& app) {
  shrink_ = app.add_subcommand(
      "shrink",
      "reduce an invalid run to the fewest of its faults that still show its anomaly: its "
      "fault windows replayed as scripted steps at their recorded times with its seed and "
      "workload, searched by delta debugging, then its time limit shortened; writes "
      "OUT/minimal.json (a scenario for run --config), OUT/shrink.html and OUT/shrink.json. "
      "Exit 0 written, 2 the replay of every fault did not reproduce, 254 a run that cannot "
      "be shrunk (valid, its faults not recorded, not a run)");
  shrink_->add_option("run_dir", options_.run_dir, "the invalid run's directory")->required();
  shrink_->add_option("--out", options_.out_dir,
                      "directory for minimal.json, the page and the tries' runs (new or empty) "
                      "[default: RUN_DIR/shrink]");
  shrink_->add_option("--tries", options_.tries,
                      "runs of each candidate; it reproduces when any shows the anomaly "
                      "[default: 3]")
      ->check(CLI::Range(1, 100));
  shrink_->add_option("--budget", options_.budget_s,
                      "seconds the whole search may take (no try starts that would end past "
                      "it; the best found so far is written); 0: no bound [default: 3600]")
      ->check(CLI::Range(0.0, 7.0 * 86400));
  shrink_->add_option("--anomaly", options_.anomaly,
                      "the anomaly kind to reproduce (a class or type of the run's anomalies) "
                      "[default: the run's first anomaly's]");
  shrink_->add_option("--resolution", options_.resolution_s,
                      "seconds to which the shortest time limit is bisected [default: 0.5]")
      ->check(CLI::Range(0.001, 3600.0));
}

std::optional<int> ShrinkCli::Run() {
  if (!shrink_->parsed()) return std::nullopt;
  SignalWatcher signals;  // before any thread starts
  return RunShrink(options_, signals, std::cout, std::cerr);
}

}  // namespace locksmith
