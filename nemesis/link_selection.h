// LinkSelection: the options the link fault families (net-loss, net-slow)
// share: which links a window strikes, chosen as a partition of the same
// shape would cut them (shape, target, clients), and how long the window
// lasts; their declaration under the family's own flag prefix, their
// check, and the part of a begin op's value they fill in. A family's
// options derive from it and add what is their own.
// Thread-safety: a plain value, like every module's options struct.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "base/option_set.h"
#include "base/result.h"
#include "nemesis/nemesis_registry.h"

namespace locksmith {

struct LinkSelection {
  std::string shape = "auto";   // which links, as a partition's shape
  std::string target = "one";   // isolate: which nodes
  std::string clients = "one";  // clients-from-nodes: which clients
  int64_t ms = 5000;            // how long each window lasts

  // Declares <prefix>_shape, _target, _clients, _ms (flags --<prefix>-...);
  // `links_do` says in their help what a struck link does ("lose
  // packets"), `window` what lasts ms ("a loss").
  void DeclareLinks(OptionSet& set, const std::string& prefix, const std::string& links_do,
                    const std::string& window);
  // The target and clients parse: one line naming the flag otherwise.
  Status CheckLinks(const std::string& prefix) const;
  // Puts shape into a begin op's `value`, and target and clients where
  // the shape reads them.
  void AddLinksTo(nlohmann::json& value) const;
};

// Why `--nemesis family` cannot run here (the hosts have no network of
// their own), or "".
std::string LinkFaultUnfit(const std::string& family, const ModuleOptions& options,
                           const NemesisContext& context);

}  // namespace locksmith
