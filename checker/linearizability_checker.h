// LinearizabilityChecker: the Checker the run lifecycle plugs in (see
// MakeLinearizabilityChecker in checker/check_file.h). It pairs invokes with
// completions, drops failed ops and nemesis ops, splits the history into
// independent partitions (Op::key, or jepsen.independent [key value]
// tuples), compiles each op for the model and runs one
// LinearizabilitySearch per partition under one shared budget.
// Stateless between calls; Check may run on several threads at once.
#pragma once

#include <string>

#include "checker/check_file.h"
#include "checker/checker.h"

namespace locksmith {

class LinearizabilityChecker : public WholeHistoryChecker {
 public:
  explicit LinearizabilityChecker(LinearizabilityOptions options)
      : options_(std::move(options)) {}
  std::string Name() const override { return "linearizable-" + options_.model; }
  CheckResult CheckWhole(const History& history) const override;

 private:
  LinearizabilityOptions options_;
};

}  // namespace locksmith
