// The fault families locksmith knows, by name (`--nemesis kill,...`), each
// with its options (declared next to its nemesis, see OptionSet), how to
// build its nemesis on a lock service, and how it fills a fault cycle of the
// schedule. Adding a family is its own files plus one line in
// NemesisFamilies(). Thread-safe (immutable table).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/lock_service.h"
#include "checker/option_set.h"
#include "nemesis/nemesis.h"
#include "nemesis/schedule.h"

namespace locksmith {

struct NemesisEntry {
  const char* name;
  OptionsFactory options;  // its options at their defaults
  // Its nemesis on `service`; an error when the backend lacks what the
  // family needs (a capability such as Killable).
  Result<std::unique_ptr<Nemesis>> (*make)(const ModuleOptions& options, LockService& service);
  CycleOps (*cycle)(const ModuleOptions& options);
};

// One family a run uses, with its options (made by the family's factory).
struct ChosenFamily {
  std::string name;
  const ModuleOptions* options = nullptr;
};

const std::vector<NemesisEntry>& NemesisFamilies();
std::vector<std::string> NemesisNames();
// The entry named `name`, or an error listing the known ones.
Result<const NemesisEntry*> FindNemesis(const std::string& name);

// One nemesis for every chosen family, routing ops by fault name.
Result<std::unique_ptr<Nemesis>> MakeNemesis(const std::vector<ChosenFamily>& families,
                                             LockService& service);
// The schedule's view of the chosen families, in order.
Result<std::vector<FaultFamily>> ScheduleFamilies(const std::vector<ChosenFamily>& families);

}  // namespace locksmith
