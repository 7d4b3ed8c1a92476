// PartitionNemesis: network partitions between the test hosts, and between
// chosen lock clients and the hosts. "partition" puts one grudge in place
// (replacing any partition already there); "heal" removes it. The begin op's
// value says which:
//
//   {"shape": "isolate", "target": "one"}        the target's hosts | the rest
//   {"shape": "primary"}                         the primary's host | the rest
//   {"shape": "halves"}                          random halves, majority second
//   {"shape": "majorities-ring"}                 every host sees its own majority
//   {"shape": "bridge"}                          two halves joined by one host
//   {"shape": "one-way"}                         one half drops what the other sends
//   {"shape": "components", "components": [["n1"], ["n2", "n3"]]}
//   {"shape": "grudge", "grudge": {"n1": ["c7"], "c7": ["n1"]}}
//                                                who drops whom, as a run's
//                                                completion value recorded it
//                                                (locksmith shrink's replays)
//   {"shape": "clients-from-nodes", "clients": [3] or "one" | "half" | "all" | "0,2",
//    "nodes": "all" (a target)}                  the clients cut off from those hosts
//   {"shape": "auto"}                            isolate one host; with one host,
//                                                clients-from-nodes
//
// Partitions cut hosts, not server processes: a Sentinel sharing a host
// with a master is cut with it. Targets (nodes) are resolved against the
// service's table when the fault starts, with a seed drawn from the
// family's seed and the op's number, so a run replays. Clients are named by
// their worker's index ("c3"); a number in "clients" is a process of the
// history (a scripted step's "$event.process"), whose worker is process mod
// concurrency. The completion value shows the grudge and, per host, the
// addresses it drops. Rules are put in place by a PartitionApplier (see
// there: established connections are cut too). With the rules in place, a
// probe checks one cut from outside (nemesis/partition_probe.h): the value's
// "probe" says what it saw, and the op is observed when the connect across
// the cut failed.
//
// Needs hosts with networks of their own (the local provider as root).
// Used from the nemesis thread; Teardown afterwards from the run thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/option_set.h"
#include "nemesis/grudge.h"
#include "nemesis/nemesis_registry.h"
#include "nemesis/partition_applier.h"
#include "nemesis/partition_probe.h"
#include "nemesis/schedule.h"

namespace locksmith {

// The partition family's options (the seeded schedule's faults).
struct PartitionOptions {
  std::string shape = "auto";
  std::string target = "one";   // isolate: which nodes
  std::string clients = "one";  // clients-from-nodes: which clients
  // isolate / primary: the clients that stay on the isolated side ("none":
  // every client still reaches every host).
  std::string isolate_clients = "none";
  int64_t ms = 5000;            // how long each partition lasts

  void Declare(OptionSet& set);
};

std::vector<std::string> PartitionShapes();

// A partition of the target, healed ms later.
WindowOps PartitionWindow(const PartitionOptions& options);

// The registry's hooks: unfit (and an error to make) when the hosts have no
// network of their own.
Result<std::unique_ptr<Nemesis>> MakePartitionNemesis(const ModuleOptions& options,
                                                      const NemesisContext& context);
std::string PartitionUnfit(const ModuleOptions& options, const NemesisContext& context);
WindowOps PartitionWindowOf(const ModuleOptions& options);
// How the reports show a partition (nemesis/fault_look.h): its grudge in
// words (DescribeGrudge), or the shape it asked for.
extern const FaultLook kPartitionLook;
// The grudge of an op's value ({"n1": ["c5"], "c5": ["n1"]}: host -> hosts
// it drops); what is not a list of names is left out. Pure.
Grudge GrudgeFromJson(const nlohmann::json& grudge);
// A partition nemesis over the context's hosts and clients whose rules live
// in the run's chain for `purpose` (a family that cuts the network as part
// of its own fault, such as failover's isolate mode, has a chain of its
// own). The hosts must have networks of their own (PartitionUnfit).
Result<std::unique_ptr<Nemesis>> NewPartitionNemesis(const NemesisContext& context,
                                                     const std::string& purpose);

// Checks a clients option (`flag`'s `text`: one, half, all, worker indices,
// or "none" where `none_allowed`) before the run's client count is known.
Status CheckClientsOption(const std::string& flag, const std::string& text, bool none_allowed);

// The clients a "clients" value picks (worker indices, sorted, each once),
// out of `concurrency`, drawing "one" and "half" from `seed`. Pure.
Result<std::vector<int>> ResolveClients(const nlohmann::json& clients, int concurrency,
                                        uint64_t seed);

// The grudge a begin op's value asks for, over the table's hosts and the
// run's clients ("c<index>"). Pure.
Result<Grudge> PartitionGrudge(const nlohmann::json& value, const NodeTable& table,
                               int concurrency, uint64_t seed);

class PartitionNemesis : public Nemesis {
 public:
  // `endpoints`: the hosts and clients the probe may connect from;
  // `connect`: how it connects (null: ConnectAcross, for real).
  PartitionNemesis(std::function<NodeTable()> table, int concurrency, uint64_t seed,
                   std::unique_ptr<PartitionApplier> applier,
                   std::vector<NetEndpoint> endpoints = {}, CutConnect connect = nullptr);

  std::vector<std::string> Faults() const override { return {"partition", "heal"}; }
  FaultResult Invoke(const FaultOp& op) override;
  std::vector<HealFailure> Teardown() override;

 private:
  const std::function<NodeTable()> table_;
  const int concurrency_;
  const uint64_t seed_;
  uint64_t begun_ = 0;  // partition ops so far: each resolves with its own seed
  std::unique_ptr<PartitionApplier> applier_;
  const std::vector<NetEndpoint> endpoints_;
  const CutConnect connect_;
};

}  // namespace locksmith
