#include "nemesis/nemesis_registry.h"

#include "base/module_registry.h"
#include "base/seed.h"
#include "history/fault_names.h"
#include "nemesis/client_clock_nemesis.h"
#include "nemesis/client_crash_nemesis.h"
#include "nemesis/client_pause_effect.h"
#include "nemesis/client_pause_nemesis.h"
#include "nemesis/clock_window.h"
#include "nemesis/failover_nemesis.h"
#include "nemesis/kill_nemesis.h"
#include "nemesis/net_loss_nemesis.h"
#include "nemesis/net_slow_nemesis.h"
#include "nemesis/partition_nemesis.h"
#include "nemesis/pause_nemesis.h"

namespace locksmith {

namespace {

// The table itself; AddNemesisFamily appends to it.
std::vector<NemesisEntry>& FamilyTable() {
  // An explicit table rather than static self-registration: static libraries
  // drop object files nothing references, taking their registrars with them.
  static std::vector<NemesisEntry> families = {
      {"kill", {"kill"}, "restart", MakeOptions<KillOptions>, MakeKillNemesis, KillWindowOf,
       kKillLook, InstallPowerShims, KillUnfit},
      {"pause", {"pause"}, "resume", MakeOptions<PauseOptions>, MakePauseNemesis, PauseWindowOf,
       kPauseLook, nullptr, PauseUnfit},
      {kClientPause, {kClientPause}, kClientResume, MakeOptions<ClientPauseOptions>,
       MakeClientPauseNemesis, ClientPauseWindowOf, kClientPauseLook, nullptr, nullptr,
       /*in_all=*/true, ClientPauseEffect, /*own_lane=*/true},
      {"clock", {"clock-bump", "clock-strobe", "clock-drift"}, "clock-reset",
       MakeOptions<ClockOptions>, MakeClockNemesisOf, ClockWindowOf, kClockLook, InstallClockShims,
       ClockUnfit},
      {"partition", {"partition"}, "heal", MakeOptions<PartitionOptions>, MakePartitionNemesis,
       PartitionWindowOf, kPartitionLook, nullptr, PartitionUnfit},
      // Not in `all`: retransmissions on a lossy link (and a slow link's
      // delays) stretch every call across it, and the runs `all` was tuned
      // for (leases, down-after times) would change their figures and
      // verdicts; name them to run them.
      {"net-loss", {"net-loss"}, "net-loss-heal", MakeOptions<NetLossOptions>, MakeNetLossNemesis,
       NetLossWindowOf, kNetLossLook, nullptr, NetLossUnfit, /*in_all=*/false},
      // Not in `all`, for the same reason.
      {"net-slow", {"net-slow"}, "net-slow-heal", MakeOptions<NetSlowOptions>, MakeNetSlowNemesis,
       NetSlowWindowOf, kNetSlowLook, nullptr, NetSlowUnfit, /*in_all=*/false},
      {"failover", {"failover"}, "failover-heal", MakeOptions<FailoverOptions>,
       MakeFailoverNemesis, FailoverWindowOf, kFailoverLook, nullptr, FailoverUnfit},
      // Not in `all`: every crash removes a worker for good, so a schedule
      // of them over a long run would leave one worker doing all the work
      // and the other families' figures would measure a shrinking run.
      {kClientCrash, {kClientCrash}, kClientCrashEnd, MakeOptions<ClientCrashOptions>,
       MakeClientCrashNemesis, ClientCrashWindowOf, kClientCrashLook, nullptr, ClientCrashUnfit,
       /*in_all=*/false, nullptr, /*own_lane=*/true},
      // Not in `all`: it needs external client programs (--client exec:).
      {kClientClock, {kClientClockBump, kClientClockStrobe, kClientClockDrift}, kClientClockReset,
       MakeOptions<ClientClockOptions>, MakeClientClockNemesis,
       ClientClockWindowOf, kClientClockLook, nullptr, ClientClockUnfit, /*in_all=*/false},
  };
  return families;
}

}  // namespace

const std::vector<NemesisEntry>& NemesisFamilies() { return FamilyTable(); }

void AddNemesisFamily(NemesisEntry entry) { FamilyTable().push_back(std::move(entry)); }

std::vector<FamilyOpNames> NemesisOpNames() {
  std::vector<FamilyOpNames> names;
  for (const auto& e : NemesisFamilies()) names.push_back({e.name, e.begins, e.end});
  return names;
}

std::set<std::string> FamiliesWithLanesOfTheirOwn() {
  std::set<std::string> names;
  for (const auto& e : NemesisFamilies()) {
    if (e.own_lane) names.insert(e.name);
  }
  return names;
}

std::vector<std::string> NemesisNames() { return EntryNames(NemesisFamilies()); }

std::vector<std::string> AllPresetNemesisNames() {
  std::vector<std::string> names;
  for (const auto& e : NemesisFamilies()) {
    if (e.in_all) names.push_back(e.name);
  }
  return names;
}

Result<const NemesisEntry*> FindNemesis(const std::string& name) {
  return FindEntry(NemesisFamilies(), "nemesis", name);
}

Result<std::unique_ptr<Nemesis>> MakeNemesis(const std::vector<ChosenFamily>& families,
                                             const NemesisContext& context) {
  std::vector<std::unique_ptr<Nemesis>> parts;
  for (size_t i = 0; i < families.size(); ++i) {
    const ChosenFamily& family = families[i];
    auto entry = FindNemesis(family.name);
    if (!entry) return Error{entry.error()};
    NemesisContext own = context;
    own.seed = SubSeed(context.seed, i);
    auto part = (*entry)->make(*family.options, own);
    if (!part) return Error{part.error()};
    parts.push_back(std::move(*part));
  }
  return std::unique_ptr<Nemesis>(new CompositeNemesis(std::move(parts)));
}

std::vector<UnfitFamily> UnfitFamilies(const std::vector<ChosenFamily>& families,
                                       const NemesisContext& context) {
  std::vector<UnfitFamily> unfit;
  for (const auto& family : families) {
    auto entry = FindNemesis(family.name);
    if (!entry || (*entry)->unfit == nullptr) continue;
    std::string reason = (*entry)->unfit(*family.options, context);
    if (!reason.empty()) unfit.push_back({family.name, std::move(reason)});
  }
  return unfit;
}

Status PrepareNemesisHosts(const std::vector<ChosenFamily>& families, Cluster& cluster) {
  for (const auto& family : families) {
    auto entry = FindNemesis(family.name);
    if (!entry) return Error{entry.error()};
    if ((*entry)->prepare_hosts == nullptr) continue;
    if (Status s = (*entry)->prepare_hosts(*family.options, cluster); !s) return s;
  }
  return OkStatus();
}

Result<std::vector<FaultFamily>> ScheduleFamilies(const std::vector<ChosenFamily>& families) {
  std::vector<FaultFamily> out;
  for (const auto& family : families) {
    auto entry = FindNemesis(family.name);
    if (!entry) return Error{entry.error()};
    out.push_back({family.name, (*entry)->window(*family.options)});
  }
  return out;
}

FaultConfirmations RegisteredConfirmations() {
  FaultConfirmations confirmations;
  for (const auto& e : NemesisFamilies()) {
    if (e.confirm != nullptr) confirmations[e.name] = e.confirm;
  }
  return confirmations;
}

}  // namespace locksmith
