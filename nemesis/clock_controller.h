// ClockController: the controller's side of one host's clock shim
// (nemesis/clock_shim.cc). Install() puts the shim into the host's spawn
// environment (LD_PRELOAD and LOCKSMITH_CLOCK_FILE), so every server the
// backend starts afterwards runs under it; Write() and Remove() replace and
// delete the control file through the Host's file operations (WriteFile
// replaces atomically), keeping the parameters last written so the next op
// can build on them. No file means the real clock. The file lives in the
// host's directory, which is the run's: whoever heals the clock fault
// (ClockNemesis::Teardown) removes it.
// Not thread-safe: used from the nemesis thread, Teardown's calls from the
// run thread after it stopped.
#pragma once

#include <cstdint>
#include <string>

#include "base/result.h"
#include "cluster/host.h"
#include "nemesis/shim_time.h"

namespace locksmith {

class ClockController {
 public:
  // The control file's name in the host's directory.
  static constexpr char kControlFile[] = "clock-shim.ctl";

  explicit ClockController(Host& host) : host_(host) {}
  ClockController(const ClockController&) = delete;
  ClockController& operator=(const ClockController&) = delete;

  // Makes every later Spawn on `host` preload `shim_library` (an absolute
  // path on the host) and read the host's control file; keeps any other
  // library the host already preloads. Call before the servers start.
  static Status Install(Host& host, const std::string& shim_library);
  // True when Install() was called on `host`.
  static bool Installed(const Host& host);

  // Replaces the control file with `params` (a new generation).
  Status Write(const shim_time::ClockParams& params);
  // Removes the control file: the host's clock is real again.
  Status Remove();

  Host& host() const { return host_; }
  // The parameters in force: the last written, the identity after Remove().
  const shim_time::ClockParams& params() const { return params_; }
  // True while a control file of ours may be in place (written, or a
  // removal failed).
  bool file_in_place() const { return file_in_place_; }
  uint64_t generation() const { return generation_; }

 private:
  Host& host_;
  shim_time::ClockParams params_;
  uint64_t generation_ = 0;
  bool file_in_place_ = false;
};

// The shim library a run installs: $LOCKSMITH_CLOCK_SHIM when set, else
// liblocksmith_clock_shim.so next to the running executable, else the one
// this build made. An error names the places it looked.
Result<std::string> FindClockShimLibrary();

}  // namespace locksmith
