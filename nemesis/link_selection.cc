#include "nemesis/link_selection.h"

#include <vector>

#include "nemesis/partition_nemesis.h"
#include "nemesis/targets.h"

namespace locksmith {

void LinkSelection::DeclareLinks(OptionSet& set, const std::string& prefix,
                                 const std::string& links_do, const std::string& window) {
  std::vector<std::string> shapes = PartitionShapes();
  std::erase(shapes, "components");  // lists of nodes: scripted steps only
  const auto key = [&](const char* name) { return prefix + "_" + name; };
  const auto flag = [&](const char* name) { return "--" + prefix + "-" + name; };
  const std::string shape_help = "which links " + links_do +
                                 ", as a partition of this shape would cut them: auto, isolate, "
                                 "primary, halves, majorities-ring, bridge, one-way, "
                                 "clients-from-nodes";
  const std::string target_help = "isolate: the hosts whose links " + links_do + ": " +
                                  TargetChoices();
  const std::string clients_help = "clients-from-nodes: the clients whose links " + links_do +
                                   ": one, half, all, or worker indices 0,3";
  const std::string ms_help = "ms " + window + " lasts before the heal, at most until the next "
                              "window";
  set.Choice(key("shape").c_str(), flag("shape").c_str(), &shape, shapes, shape_help.c_str());
  set.Text(key("target").c_str(), flag("target").c_str(), &target, 256, target_help.c_str());
  set.Text(key("clients").c_str(), flag("clients").c_str(), &clients, 256, clients_help.c_str());
  set.Integer(key("ms").c_str(), flag("ms").c_str(), &ms, int64_t{1}, int64_t{3'600'000},
              ms_help.c_str());
}

Status LinkSelection::CheckLinks(const std::string& prefix) const {
  if (auto parsed = ParseTarget(target); !parsed) {
    return Error{"--" + prefix + "-target: " + parsed.error()};
  }
  return CheckClientsOption("--" + prefix + "-clients", clients, false);
}

void LinkSelection::AddLinksTo(nlohmann::json& value) const {
  value["shape"] = shape;
  if (shape == "auto" || shape == "isolate") value["target"] = target;
  if (shape == "auto" || shape == "clients-from-nodes") value["clients"] = clients;
}

std::string LinkFaultUnfit(const std::string& family, const ModuleOptions& options,
                           const NemesisContext& context) {
  if (PartitionUnfit(options, context).empty()) return "";
  return "--nemesis " + family + " needs hosts with networks of their own: run as root, without "
         "--loopback";
}

}  // namespace locksmith
