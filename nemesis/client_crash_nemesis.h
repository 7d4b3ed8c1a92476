// ClientCrashNemesis: "client-crash" makes a worker vanish in the middle of
// an acquire, as a client process killed there (a flash sale's SETNX-then-EXPIRE
// client dies between the two commands and leaves a lock that never
// expires). The begin op waits, up to its `wait_ms` (default 5000), for a
// worker to reach a crash point of an acquire ("key" and "process" in its
// value narrow who may; workloads/acquirer_crash.h says where the points
// are) and returns who crashed ({"process", "key", "crashed"}), observed:
// the worker itself took the crash and stopped; with no acquirer in that
// time the op fails and nothing crashes. The crashed worker
// stops for good: the run goes on with one fewer worker, its open acquire is
// info at the end. "client-crash-end" only drops a request nobody took: a
// crash is never undone. At most `max` workers crash in a run, and never the
// last live one (the run keeps a worker). Used from the nemesis thread;
// Teardown from the run thread afterwards.
#pragma once

#include <string>

#include "backends/client_crashes.h"
#include "base/option_set.h"
#include "history/fault_names.h"
#include "nemesis/nemesis.h"
#include "nemesis/nemesis_registry.h"
#include "nemesis/schedule.h"

namespace locksmith {

// The client-crash family's options.
struct ClientCrashOptions {
  std::string key;  // only an acquirer of this key; empty: any
  int max = 1;      // workers crashed at most in a run

  void Declare(OptionSet& set);
};

// A crash asked for at the start; the window closes a second later.
WindowOps ClientCrashWindow(const ClientCrashOptions& options);

// The registry's hooks (any backend: the crash happens in the client).
Result<std::unique_ptr<Nemesis>> MakeClientCrashNemesis(const ModuleOptions& options,
                                                        const NemesisContext& context);
WindowOps ClientCrashWindowOf(const ModuleOptions& options);
std::string ClientCrashUnfit(const ModuleOptions& options, const NemesisContext& context);
// How the reports show a client crash (nemesis/fault_look.h): which worker
// vanished in an acquire of which key, marked on that worker's lane.
extern const FaultLook kClientCrashLook;

class ClientCrashNemesis : public Nemesis {
 public:
  // `workers`: the run's workers (0: unknown, no floor); `max`: crashes at most.
  ClientCrashNemesis(ClientCrashes& crashes, int workers, int max)
      : crashes_(crashes), workers_(workers), max_(max) {}

  std::vector<std::string> Faults() const override { return {kClientCrash, kClientCrashEnd}; }
  FaultResult Invoke(const FaultOp& op) override;
  // Drops a crash nobody took; the crashed workers stay gone.
  std::vector<HealFailure> Teardown() override;

 private:
  ClientCrashes& crashes_;
  const int workers_;
  const int max_;
  int crashed_ = 0;
};

}  // namespace locksmith
