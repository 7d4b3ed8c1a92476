// PowerJournal: the controller's side of the power shim
// (nemesis/power_shim.cc). Install() puts the shim into a host's spawn
// environment, covering the host's directory, with its journal in the
// host's "power-loss" directory, so every server started afterwards keeps
// an undo journal of what it did not fsync. Replay(), after the servers of
// the host were SIGKILLed and before they restart, undoes it: restores the
// bytes unsynced writes overwrote, truncates files to their size at their
// last sync, removes files created and never synced, undoes renames no
// directory fsync made durable; then empties the journal. The journal lives
// in the run's directory and goes with it.
//
// Replay reads the host's directory on the controller's filesystem (the
// local provider). Thread-compatible: one caller per host at a time, after
// its servers died.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "cluster/host.h"

namespace locksmith {

// What one replay undid.
struct PowerLossUndo {
  int records = 0;           // journal records read
  int writes_undone = 0;     // ranges whose old bytes came back
  uint64_t bytes_restored = 0;
  int files_truncated = 0;   // truncations to a synced size
  int files_removed = 0;     // never-synced files removed
  int renames_undone = 0;

  nlohmann::json ToJson() const;
};

class PowerJournal {
 public:
  // The journal's directory, relative to the host's.
  static constexpr char kDirectory[] = "power-loss";

  // Makes every later Spawn on `host` preload `shim_library` (an absolute
  // path on the host) with the host's directory covered. Call before the
  // servers start.
  static Status Install(Host& host, const std::string& shim_library);
  // True when Install() was called on `host`.
  static bool Installed(const Host& host);

  // Undoes the journal in the directory `journal_dir` (absolute, local)
  // and empties it; no journal: nothing to undo.
  static Result<PowerLossUndo> Replay(const std::string& journal_dir);
  // The same for `host`'s journal; an error when the host's directory is
  // not on this filesystem.
  static Result<PowerLossUndo> ReplayHost(const Host& host);
};

// The power shim library a run installs: $LOCKSMITH_POWER_SHIM when set,
// else liblocksmith_power_shim.so next to the running executable, else the
// one this build made.
Result<std::string> FindPowerShimLibrary();

}  // namespace locksmith
