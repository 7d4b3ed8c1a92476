// PauseNemesis: "pause" freezes the target nodes' server processes with
// SIGSTOP, like a long GC pause or a stalled VM; "resume" thaws them with
// SIGCONT. Connections stay open and requests queue, unlike a kill. A
// NodeFaultNemesis: targets, completion values and Teardown are as there.
// Used from the nemesis thread; Teardown afterwards from the run thread.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "base/option_set.h"
#include "nemesis/nemesis_registry.h"
#include "nemesis/node_fault_nemesis.h"
#include "nemesis/schedule.h"

namespace locksmith {

// The pause family's options.
struct PauseOptions {
  std::string target = "one";  // which nodes each pause freezes
  int64_t pause_ms = 2000;     // how long they stay frozen, at most until the next window

  void Declare(OptionSet& set);
};

// A pause of the target at the start, its resume pause_ms later.
WindowOps PauseWindow(const PauseOptions& options);

// The registry's hooks: unfit (and an error to make) when the backend
// cannot pause nodes.
Result<std::unique_ptr<Nemesis>> MakePauseNemesis(const ModuleOptions& options,
                                                  const NemesisContext& context);
std::string PauseUnfit(const ModuleOptions& options, const NemesisContext& context);
WindowOps PauseWindowOf(const ModuleOptions& options);
// How the reports show a pause (nemesis/fault_look.h): the nodes it froze.
extern const FaultLook kPauseLook;

class PauseNemesis : public NodeFaultNemesis {
 public:
  // `processes` may be null: nothing is observed.
  PauseNemesis(Pausable& service, std::function<NodeTable()> table, uint64_t seed,
               HasNodeProcesses* processes = nullptr);
};

// The check after a pause: `node`'s process is stopped (state T) on its
// host, read within `within`; what was read goes into `seen`. nullopt when
// `processes` is null.
std::optional<bool> StoppedOnItsHost(HasNodeProcesses* processes, const std::string& node,
                                     nlohmann::json& seen,
                                     std::chrono::milliseconds within = std::chrono::seconds(1));

}  // namespace locksmith
