// The cluster phase: hosts that cannot be made fail the run and need no
// teardown; hosts made are torn down when the phase ends, the reason in the
// log, and the node files lose the servers' passwords.
#include "harness/run_cluster.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/exit_codes.h"
#include "base/testing/file_text.h"
#include "harness/testing/phase_run.h"

namespace locksmith {
namespace {

using testing::FileText;
using testing::FakeCluster;
using testing::PhaseRun;

TEST(ClusterPhaseTest, HostsThatCannotBeMadeFailTheRun) {
  PhaseRun p;
  p.modules.make_cluster = [](const RunConfig&, const std::string&) {
    return Result<std::unique_ptr<Cluster>>(Error{"no bridge"});
  };
  ClusterPhase cluster(p.run);
  EXPECT_EQ(cluster.hosts(), nullptr);
  EXPECT_EQ(p.run.facts.failure_exit, kExitRunFailed);
  EXPECT_EQ(p.run.facts.error, "no bridge");
}

// A fake cluster that counts its teardowns where the test can read them
// after the phase has destroyed it.
class CountingCluster : public FakeCluster {
 public:
  explicit CountingCluster(int* teardowns) : FakeCluster({"n1"}), teardowns_(teardowns) {}
  Status Teardown() override {
    ++*teardowns_;
    return FakeCluster::Teardown();
  }

 private:
  int* teardowns_;
};

TEST(ClusterPhaseTest, ItsEndTearsTheHostsDownAndRedactsTheNodeFiles) {
  PhaseRun p;
  int teardowns = 0;
  p.modules.make_cluster = [&teardowns](const RunConfig&, const std::string&) {
    return Result<std::unique_ptr<Cluster>>(std::make_unique<CountingCluster>(&teardowns));
  };
  const std::string secret = "cluster-test-password-77ac";
  const std::string node_file = p.store.NodesDir() + "/n1/redis.conf";
  {
    ClusterPhase cluster(p.run);
    ASSERT_NE(cluster.hosts(), nullptr);
    std::filesystem::create_directories(p.store.NodesDir() + "/n1");
    std::ofstream(node_file) << "requirepass " << secret << "\n";
    p.run.secrets.push_back(secret);
    p.run.Fail(kExitRunFailed, "servers: refused");
    EXPECT_EQ(teardowns, 0);
  }
  EXPECT_EQ(teardowns, 1);
  const std::string log = FileText(p.store.File("locksmith.log"));
  EXPECT_NE(log.find("teardown (failed)"), std::string::npos) << log;
  const std::string conf = FileText(node_file);
  EXPECT_EQ(conf.find(secret), std::string::npos) << conf;
  EXPECT_NE(conf.find("requirepass"), std::string::npos);
}

TEST(ClusterPhaseTest, ACompleteRunIsTornDownToo) {
  PhaseRun p;
  { ClusterPhase cluster(p.run); }
  const std::string log = FileText(p.store.File("locksmith.log"));
  EXPECT_NE(log.find("teardown (run complete)"), std::string::npos) << log;
}

}  // namespace
}  // namespace locksmith
