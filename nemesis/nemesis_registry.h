// The fault families locksmith knows, by name (`--nemesis kill,...`), each
// with its options (declared next to its nemesis, see OptionSet), how to
// build its nemesis on a lock service, how it fills a fault cycle of the
// schedule, and how the reports show its faults (its FaultLook). Adding a
// family is its own files plus one line in NemesisFamilies(); a client-side
// family's make also adds its worker half to the run's ClientFaults
// (backends/client_faults.h), and nothing else of the run names it.
// Thread-safe once built (a table read by all; AddNemesisFamily, for a
// test's own family, before any run).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "backends/client_faults.h"
#include "backends/lock_service.h"
#include "base/option_set.h"
#include "cluster/host.h"
#include "nemesis/fault_ledger.h"
#include "nemesis/fault_look.h"
#include "nemesis/nemesis.h"
#include "nemesis/scenario_steps.h"
#include "nemesis/schedule.h"

namespace locksmith {

// What a family's nemesis may use of the run: the service (its node table
// and capabilities), the run's client-side fault families (a client-side
// family adds its worker half there, through which it reaches the
// workers), a seed of its own (targets), the workload's longest lease
// (delayed restarts wait that long), the hosts and the clients.
struct NemesisContext {
  LockService& service;
  ClientFaults& client_faults;
  uint64_t seed = 0;
  std::chrono::milliseconds longest_lease{0};
  // The run's hosts (their networks, for partitions) and how many lock
  // clients it has (Cluster::ClientAddress names their addresses); null and
  // 0 where a caller has no cluster.
  Cluster* cluster = nullptr;
  int concurrency = 0;
  // Whether the lock clients are external programs (`--client exec:`),
  // whose processes and clocks a fault may reach (client-clock).
  bool external_clients = false;
};

struct NemesisEntry {
  const char* name;
  std::vector<std::string> begins;  // the ops that begin one of its faults, e.g. {"kill"}
  const char* end;                  // the op that ends it, e.g. "restart"
  OptionsFactory options;  // its options at their defaults
  // Its nemesis in `context`; an error when the backend lacks what the
  // family needs (a capability such as Killable).
  Result<std::unique_ptr<Nemesis>> (*make)(const ModuleOptions& options,
                                           const NemesisContext& context);
  WindowOps (*window)(const ModuleOptions& options);
  // Its lane, colour and words in the reports (results.json carries them).
  FaultLook look;
  // Sets the hosts up before the servers start (e.g. the clock shim in
  // their spawn environment); null when the family needs nothing there.
  Status (*prepare_hosts)(const ModuleOptions& options, Cluster& cluster) = nullptr;
  // Why the family cannot run in `context` (a capability the backend lacks,
  // hosts without networks of their own), empty when it can; null when it
  // always can. `make` fails with this reason; `--nemesis all` leaves the
  // family out.
  std::string (*unfit)(const ModuleOptions& options, const NemesisContext& context) = nullptr;
  // Whether `--nemesis all` chooses it; false for a family that must be
  // named to run (client-crash: each crash removes a worker for good).
  bool in_all = true;
  // How the fault ledger confirms one of its faults from the history (see
  // FaultConfirmation, nemesis/fault_ledger.h); null when its ops' own
  // "observed" says it (FaultResult::observed).
  std::optional<FaultConfirmed> (*confirm)(const History& history, size_t begin_done) = nullptr;
  // Whether its windows play on a lane of their own (NemesisRunner): its
  // begin op waits for the workload (a holder to stall, an acquire to
  // crash), which must not hold back the end of a server fault the workload
  // is itself waiting on. Its ops touch only the lock clients.
  bool own_lane = false;
};

// The families whose windows play on lanes of their own (own_lane).
std::set<std::string> FamiliesWithLanesOfTheirOwn();

// One family a run uses, with its options (made by the family's factory).
struct ChosenFamily {
  std::string name;
  const ModuleOptions* options = nullptr;
};

const std::vector<NemesisEntry>& NemesisFamilies();
// Adds a family to the table (a test's own family: the one registration
// line it needs); not thread-safe: before any run. A family of the product
// is a line of NemesisFamilies' table instead.
void AddNemesisFamily(NemesisEntry entry);
// Every family's begin and end op names, for scripted steps.
std::vector<FamilyOpNames> NemesisOpNames();
std::vector<std::string> NemesisNames();
// The families `--nemesis all` chooses (NemesisEntry::in_all), in order.
std::vector<std::string> AllPresetNemesisNames();
// The entry named `name`, or an error listing the known ones.
Result<const NemesisEntry*> FindNemesis(const std::string& name);

// One nemesis for every chosen family, routing ops by fault name; family i
// gets the seed SubSeed(context.seed, i).
Result<std::unique_ptr<Nemesis>> MakeNemesis(const std::vector<ChosenFamily>& families,
                                             const NemesisContext& context);
// The chosen families that cannot run in `context`, each with the reason.
struct UnfitFamily {
  std::string name;
  std::string reason;
};
std::vector<UnfitFamily> UnfitFamilies(const std::vector<ChosenFamily>& families,
                                       const NemesisContext& context);
// Every chosen family's prepare_hosts, in order; the first error.
Status PrepareNemesisHosts(const std::vector<ChosenFamily>& families, Cluster& cluster);
// The schedule's view of the chosen families, in order.
Result<std::vector<FaultFamily>> ScheduleFamilies(const std::vector<ChosenFamily>& families);
// Every family's confirmation from the history (NemesisEntry::confirm), for
// the fault ledger.
FaultConfirmations RegisteredConfirmations();

}  // namespace locksmith
