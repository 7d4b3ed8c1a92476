// The resource phase: a workload without a protected resource needs no
// store; one with a resource on a cluster without the store's host fails the
// run before any store is started.
#include "harness/run_resource.h"

#include <gtest/gtest.h>

#include "base/exit_codes.h"
#include "harness/testing/phase_run.h"

namespace locksmith {
namespace {

using testing::FakeCluster;
using testing::PhaseRun;

TEST(ResourcePhaseTest, AWorkloadWithoutAResourceNeedsNoStore) {
  PhaseRun p;
  p.config.workload = "mutex";
  FakeCluster cluster({"n1"});
  ResourcePhase resource(p.run, cluster);
  EXPECT_TRUE(resource.ready());
  EXPECT_EQ(resource.store(), nullptr);
  EXPECT_EQ(p.run.facts.failure_exit, 0);
}

TEST(ResourcePhaseTest, AClusterWithoutTheStoresHostFailsTheRun) {
  PhaseRun p;
  p.config.workload = "inventory";
  FakeCluster cluster({"n1"});
  ResourcePhase resource(p.run, cluster);
  EXPECT_FALSE(resource.ready());
  EXPECT_EQ(resource.store(), nullptr);
  EXPECT_EQ(p.run.facts.failure_exit, kExitRunFailed);
  EXPECT_NE(p.run.facts.error.find(kResourceHost), std::string::npos) << p.run.facts.error;
  EXPECT_TRUE(p.run.secrets.empty());
}

}  // namespace
}  // namespace locksmith
