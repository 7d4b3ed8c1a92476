#include "nemesis/nemesis_registry.h"

#include "checker/module_registry.h"
#include "nemesis/kill_nemesis.h"

namespace locksmith {

const std::vector<NemesisEntry>& NemesisFamilies() {
  // An explicit table rather than static self-registration: static libraries
  // drop object files nothing references, taking their registrars with them.
  static const std::vector<NemesisEntry> kFamilies = {
      {"kill", MakeOptions<KillOptions>, MakeKillNemesis, KillCycleOf},
  };
  return kFamilies;
}

std::vector<std::string> NemesisNames() { return EntryNames(NemesisFamilies()); }

Result<const NemesisEntry*> FindNemesis(const std::string& name) {
  return FindEntry(NemesisFamilies(), "nemesis", name);
}

Result<std::unique_ptr<Nemesis>> MakeNemesis(const std::vector<ChosenFamily>& families,
                                             LockService& service) {
  std::vector<std::unique_ptr<Nemesis>> parts;
  for (const auto& family : families) {
    auto entry = FindNemesis(family.name);
    if (!entry) return Error{entry.error()};
    auto part = (*entry)->make(*family.options, service);
    if (!part) return Error{part.error()};
    parts.push_back(std::move(*part));
  }
  return std::unique_ptr<Nemesis>(new CompositeNemesis(std::move(parts)));
}

Result<std::vector<FaultFamily>> ScheduleFamilies(const std::vector<ChosenFamily>& families) {
  std::vector<FaultFamily> out;
  for (const auto& family : families) {
    auto entry = FindNemesis(family.name);
    if (!entry) return Error{entry.error()};
    out.push_back({family.name, (*entry)->cycle(*family.options)});
  }
  return out;
}

}  // namespace locksmith
