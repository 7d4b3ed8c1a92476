// OpenedRun: the first phase of a run: its seed (a fresh one from the
// kernel's entropy when none was given, printed and stored so the run
// replays), its directory in the store, locksmith.log, config.json, the
// controller's record (for `locksmith check RUN_DIR`) and the room kept for
// results.json should the history fill the disk. Its end is the run's last
// act, on every path: no file the run wrote hands a reader a secret (an exec
// client's log, a report quoting an error; history.bin's strings were
// redacted as recorded, nodes/ at teardown). One run's, on its thread.
#pragma once

#include <memory>
#include <optional>

#include "harness/results_room.h"
#include "harness/run_config.h"
#include "harness/run_log.h"
#include "harness/run_store.h"
#include "reports/run_outcome.h"

namespace locksmith {

class OpenedRun {
 public:
  // Sets config.seed when unset; fills in outcome.run_dir and
  // outcome.config. Null when the run cannot begin: outcome's exit code
  // and error say why (254: the store; 255: config.json not written).
  static std::unique_ptr<OpenedRun> Open(RunConfig& config, RunOutcome& outcome);
  ~OpenedRun();
  OpenedRun(const OpenedRun&) = delete;
  OpenedRun& operator=(const OpenedRun&) = delete;

  const RunStore& store() const { return store_; }
  RunLog& log() { return log_; }
  // Frees the room kept for results.json, for the judge.
  void GiveBackRoom() { room_.reset(); }

 private:
  explicit OpenedRun(RunStore store) : store_(std::move(store)) {}

  const RunStore store_;
  RunLog log_;
  std::optional<ResultsRoom> room_;
};

}  // namespace locksmith
