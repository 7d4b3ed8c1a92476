// NetLossNemesis (family `net-loss`): random packet loss on chosen links.
// "net-loss" makes the links a partition of the same value would cut drop
// each packet with a probability instead of every packet:
//
//   {"shape": "auto" | "isolate" | ... (the partition shapes),
//    "target": ..., "clients": ...,   as for a partition
//    "probability": 0.3}              each packet's chance to be dropped
//
// replacing any loss already in place; "net-loss-heal" ends it. The rules
// are iptables' statistic match (`-m statistic --mode random --probability
// P -j DROP`) in a chain of the run's ("LSM-<tag>-loss") inside the hosts'
// own networks, placed where the packets are sent: a host drops its own
// packets on the way out, and a client's (a client has no firewall of its
// own) are dropped by the node on the way in. Connections are left alone:
// TCP retransmits what was lost, so calls slow down and time out rather
// than fail at once. The heal reads the rules' packet counters back before
// it removes them: its value's "dropped" counts the packets the loss
// dropped, and the fault is observed when that is above zero. As with
// partitions, the teardown (also after SIGINT) and `locksmith cleanup`
// remove the chains.
//
// Needs hosts with networks of their own (the local provider as root).
// Used from the nemesis thread; Teardown afterwards from the run thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "base/option_set.h"
#include "nemesis/link_selection.h"
#include "nemesis/nemesis_registry.h"
#include "nemesis/partition_applier.h"
#include "nemesis/schedule.h"

namespace locksmith {

// The links and window length are LinkSelection's (flags --loss-shape,
// --loss-target, --loss-clients, --loss-ms).
struct NetLossOptions : LinkSelection {
  double probability = 0.3;  // each packet's chance to be dropped

  void Declare(OptionSet& set);
};

// A loss on the target's links, healed ms later.
WindowOps NetLossWindow(const NetLossOptions& options);

// The registry's hooks: unfit (and an error to make) when the hosts have no
// network of their own.
Result<std::unique_ptr<Nemesis>> MakeNetLossNemesis(const ModuleOptions& options,
                                                    const NemesisContext& context);
std::string NetLossUnfit(const ModuleOptions& options, const NemesisContext& context);
WindowOps NetLossWindowOf(const ModuleOptions& options);
// How the reports show a loss: its probability and the links it hit.
extern const FaultLook kNetLossLook;

// The packets the rules in place dropped so far.
using DropCounter = std::function<Result<uint64_t>()>;

class NetLossNemesis : public Nemesis {
 public:
  // `applier`: a PartitionApplier placing rules at the sender, leaving
  // connections alone; `dropped`: how the heal reads the drops back (null:
  // the applier's counters).
  NetLossNemesis(std::function<NodeTable()> table, int concurrency, uint64_t seed,
                 std::unique_ptr<PartitionApplier> applier, DropCounter dropped = nullptr);

  std::vector<std::string> Faults() const override { return {"net-loss", "net-loss-heal"}; }
  FaultResult Invoke(const FaultOp& op) override;
  std::vector<HealFailure> Teardown() override;

 private:
  FaultResult Begin(const nlohmann::json& value);
  FaultResult Heal();

  const std::function<NodeTable()> table_;
  const int concurrency_;
  const uint64_t seed_;
  uint64_t begun_ = 0;  // loss ops so far: each resolves with its own seed
  std::unique_ptr<PartitionApplier> applier_;
  const DropCounter dropped_;
};

}  // namespace locksmith
