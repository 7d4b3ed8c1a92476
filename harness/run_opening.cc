#include "harness/run_opening.h"

#include <random>

#include "base/atomic_file.h"
#include "base/exit_codes.h"
#include "base/run_secrets.h"
#include "cluster/run_registry.h"
#include "harness/secret_redaction.h"
#include "history/history_log.h"

namespace locksmith {
namespace {

uint64_t FreshRunSeed() {
  std::random_device entropy;
  return (uint64_t{entropy()} << 32) | entropy();
}

}  // namespace

std::unique_ptr<OpenedRun> OpenedRun::Open(RunConfig& config, RunOutcome& outcome) {
  if (!config.seed) config.seed = FreshRunSeed();
  auto store = CreateRunStore(config.store, config.ResolvedTestName());
  if (!store) {
    outcome.exit_code = kExitBadInput;
    outcome.error = store.error();
    return nullptr;
  }
  outcome.run_dir = store->dir;
  std::unique_ptr<OpenedRun> run(new OpenedRun(std::move(*store)));
  run->log_.Open(run->store_.File("locksmith.log"), /*echo_to_stderr=*/true);
  outcome.config = config.ToJson();
  if (Status s = WriteFileAtomically(run->store_.File("config.json"),
                                     outcome.config.dump(2) + "\n");
      !s) {
    run->log_.Error(s.error());
    outcome.exit_code = kExitRunFailed;
    outcome.error = s.error();
    return nullptr;
  }
  if (Status s = WriteRunController(run->store_.dir); !s) run->log_.Warn(s.error());
  run->room_.emplace(run->store_.dir);
  run->log_.Info("run " + run->store_.dir + " seed " + std::to_string(*config.seed));
  return run;
}

OpenedRun::~OpenedRun() {
  room_.reset();
  if (Status s = RedactSecrets(store_.dir, RunSecretList(), {kRunHistoryLog, "nodes"}); !s) {
    log_.Error(s.error());
  }
}

}  // namespace locksmith
