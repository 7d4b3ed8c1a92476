#include "workloads/resource_workload.h"

#include <gtest/gtest.h>

#include "checker/checker.h"
#include "workloads/workload_registry.h"

namespace locksmith {
namespace {

// The checkers a resource workload runs: its resource's own, then the
// lock checks every resource workload shares.
std::vector<std::string> CheckerNames(const std::string& workload_name) {
  auto entry = FindWorkload(workload_name);
  EXPECT_TRUE(entry.ok());
  if (!entry) return {};
  auto options = (*entry)->options();
  auto workload = MakeWorkload(workload_name, *options);
  EXPECT_TRUE(workload.ok());
  if (!workload) return {};
  std::vector<std::string> names;
  for (const auto& c : (*workload)->Checkers()) names.push_back(c->Name());
  return names;
}

TEST(ResourceWorkloadTest, EveryResourceWorkloadRunsItsOwnCheckerThenTheLockChecks) {
  const std::vector<std::string> lock_checks = {"fencing", "foreign-release", "stuck-lock",
                                                "perf", "client-stats"};
  std::vector<std::string> counter = {"counter"};
  counter.insert(counter.end(), lock_checks.begin(), lock_checks.end());
  EXPECT_EQ(CheckerNames("counter"), counter);
  std::vector<std::string> inventory = {"inventory"};
  inventory.insert(inventory.end(), lock_checks.begin(), lock_checks.end());
  EXPECT_EQ(CheckerNames("inventory"), inventory);
}

}  // namespace
}  // namespace locksmith
