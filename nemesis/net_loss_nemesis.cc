#include "nemesis/net_loss_nemesis.h"

#include <cstdio>

#include "base/seed.h"
#include "cluster/net_plan.h"
#include "nemesis/fault_text.h"
#include "nemesis/grudge.h"
#include "nemesis/partition_nemesis.h"

namespace locksmith {
namespace {

constexpr double kDefaultProbability = 0.3;

// "30%", "0.5%".
std::string Percent(double probability) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g%%", probability * 100.0);
  return text;
}

// A begin op's "probability": a number in (0, 1], the default when absent.
Result<double> ProbabilityOf(const nlohmann::json& value) {
  if (!value.is_object() || !value.contains("probability")) return kDefaultProbability;
  const auto& p = value.at("probability");
  if (!p.is_number() || !(p.get<double>() > 0.0 && p.get<double>() <= 1.0)) {
    return Error{"\"probability\" must be a number above 0 and at most 1, not " + p.dump()};
  }
  return p.get<double>();
}

// "net-loss 30% (n1 | n2 n3)": the links as a partition of them would read.
std::string DescribeNetLoss(const FaultOp& op) {
  std::string text = op.f;
  if (auto p = ProbabilityOf(op.value); p) text += " " + Percent(*p);
  if (op.value.is_object() && op.value.contains("grudge")) {
    return text + " (" + DescribeGrudge(GrudgeFromJson(op.value["grudge"])) + ")";
  }
  if (std::string shape = StringField(op.value, "shape"); !shape.empty()) {
    text += " (" + shape + ")";
  }
  return text;
}

}  // namespace

const FaultLook kNetLossLook = {"net-loss", 32, "#f9a825", DescribeNetLoss};

void NetLossOptions::Declare(OptionSet& set) {
  set.Number("loss_probability", "--loss-probability", &probability, 0.0, 1.0,
             "each packet's chance to be dropped on a lossy link (above 0, at most 1)",
             /*min_exclusive=*/true);
  DeclareLinks(set, "loss", "lose packets", "a loss");
  set.Require([this] { return CheckLinks("loss"); });
}

WindowOps NetLossWindow(const NetLossOptions& options) {
  nlohmann::json value = {{"probability", options.probability}};
  options.AddLinksTo(value);
  return TimedWindow({"net-loss", std::move(value)}, {"net-loss-heal", nullptr}, options.ms);
}

WindowOps NetLossWindowOf(const ModuleOptions& options) {
  return NetLossWindow(OptionsAs<NetLossOptions>(options));
}

std::string NetLossUnfit(const ModuleOptions& options, const NemesisContext& context) {
  return LinkFaultUnfit("net-loss", options, context);
}

Result<std::unique_ptr<Nemesis>> MakeNetLossNemesis(const ModuleOptions& options,
                                                    const NemesisContext& context) {
  if (std::string why = NetLossUnfit(options, context); !why.empty()) return Error{why};
  Cluster* cluster = context.cluster;
  auto chain = ChainName(cluster->Tag(), "loss");
  if (!chain) return Error{chain.error()};
  std::vector<NetEndpoint> endpoints = ClusterEndpoints(*cluster, context.concurrency);
  LockService& service = context.service;
  return std::unique_ptr<Nemesis>(new NetLossNemesis(
      [&service] { return service.Table(); }, context.concurrency, context.seed,
      std::make_unique<PartitionApplier>(
          *chain, std::move(endpoints),
          CutStyle{/*at_sender=*/true, /*abort_connections=*/false})));
}

NetLossNemesis::NetLossNemesis(std::function<NodeTable()> table, int concurrency, uint64_t seed,
                               std::unique_ptr<PartitionApplier> applier, DropCounter dropped)
    : table_(std::move(table)),
      concurrency_(concurrency),
      seed_(seed),
      applier_(std::move(applier)),
      dropped_(dropped ? std::move(dropped)
                       : DropCounter([this] { return applier_->DroppedPackets(); })) {}

FaultResult NetLossNemesis::Invoke(const FaultOp& op) {
  if (op.f == "net-loss") return Begin(op.value);
  if (op.f == "net-loss-heal") return Heal();
  return {false, nullptr, "net-loss cannot " + op.f};
}

FaultResult NetLossNemesis::Begin(const nlohmann::json& value) {
  auto probability = ProbabilityOf(value);
  if (!probability) return {false, nullptr, probability.error()};
  auto grudge = PartitionGrudge(value, table_(), concurrency_, SubSeed(seed_, begun_++));
  if (!grudge) return {false, nullptr, grudge.error()};
  nlohmann::json done = {
      {"shape", value.is_object() && value.contains("shape") ? value.at("shape")
                                                             : nlohmann::json("auto")},
      {"probability", *probability},
      {"grudge", *grudge}};
  auto applied = applier_->Apply(*grudge, *probability);
  if (!applied) return {false, std::move(done), applied.error()};
  done["rules"] = std::move(*applied);
  // Nothing is observed yet: the counters say at the heal what was dropped.
  return {true, std::move(done), ""};
}

FaultResult NetLossNemesis::Heal() {
  auto dropped = dropped_();
  if (Status s = applier_->Heal(); !s) return {false, nullptr, s.error()};
  FaultResult result{true, {{"healed", true}}, ""};
  if (dropped) {
    result.value["dropped"] = *dropped;
    result.observed = *dropped > 0;
  } else {
    result.value["dropped_error"] = dropped.error();
  }
  return result;
}

std::vector<HealFailure> NetLossNemesis::Teardown() {
  if (Status s = applier_->Teardown(); !s) return {{"net-loss-heal", nullptr, s.error()}};
  return {};
}

}  // namespace locksmith
