#include "nemesis/nemesis_registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "backends/testing/fake_lock_service.h"
#include "cluster/testing/fake_cluster.h"
#include "cluster/testing/fake_net.h"

namespace locksmith {
namespace {

using testing::FakeCluster;
using testing::FakeLockService;
using testing::FakeNet;

// Every family at its defaults.
std::vector<ChosenFamily> EveryFamily(std::vector<std::unique_ptr<ModuleOptions>>& owned) {
  std::vector<ChosenFamily> chosen;
  for (const auto& e : NemesisFamilies()) {
    owned.push_back(e.options());
    chosen.push_back({e.name, owned.back().get()});
  }
  return chosen;
}

std::map<std::string, std::string> Unfit(LockService& service, Cluster* cluster) {
  std::vector<std::unique_ptr<ModuleOptions>> owned;
  ClientFaults client_faults;
  const NemesisContext context{service, client_faults,
                               1, std::chrono::milliseconds(1000), cluster, 2};
  std::map<std::string, std::string> out;
  for (const auto& u : UnfitFamilies(EveryFamily(owned), context)) out[u.name] = u.reason;
  return out;
}

// A single master: killable, pausable, with a primary nobody takes over from.
class SingleMaster : public FakeLockService,
                     public Killable,
                     public Pausable,
                     public HasPrimary {
 public:
  std::string Backend() const override { return "single"; }
  Status KillNode(const std::string&) override { return OkStatus(); }
  Status StartNode(const std::string&) override { return OkStatus(); }
  Status PauseNode(const std::string&) override { return OkStatus(); }
  Status ResumeNode(const std::string&) override { return OkStatus(); }
  Result<std::string> Primary() override { return std::string("n1"); }
  bool Promotes() const override { return promotes; }
  bool promotes = false;
};

TEST(NemesisRegistryTest, UnfitFamiliesNameWhatTheServiceLacks) {
  FakeLockService bare;
  auto unfit = Unfit(bare, nullptr);
  EXPECT_EQ(unfit["kill"], "backend fake cannot kill nodes");
  EXPECT_EQ(unfit["pause"], "backend fake cannot pause nodes");
  EXPECT_EQ(unfit["clock"], "backend fake cannot show its nodes' clocks");
  EXPECT_NE(unfit["partition"].find("networks of their own"), std::string::npos);
  EXPECT_NE(unfit["failover"].find("no replica or peer"), std::string::npos);
  EXPECT_EQ(unfit.count("client-pause"), 0u);  // needs nothing of the service
}

TEST(NemesisRegistryTest, FailoverFitsOnlyWhereAnotherNodeTakesOver) {
  FakeNet net;
  FakeCluster cluster({"n1", "n2"}, "fake01", &net);
  SingleMaster single;
  auto unfit = Unfit(single, &cluster);
  EXPECT_EQ(unfit.count("kill"), 0u);
  EXPECT_EQ(unfit.count("pause"), 0u);
  EXPECT_EQ(unfit.count("partition"), 0u);
  EXPECT_EQ(unfit["failover"],
            "backend single has no replica or peer to take over from its primary");

  single.promotes = true;
  unfit = Unfit(single, &cluster);
  EXPECT_EQ(unfit.count("failover"), 0u);
  EXPECT_EQ(unfit.count("clock"), 1u);  // still no clocks
}

TEST(NemesisRegistryTest, MakingAnUnfitFamilyFailsWithItsReason) {
  SingleMaster single;
  ClientFaults client_faults;
  const NemesisContext context{single, client_faults,
                               1, std::chrono::milliseconds(1000), nullptr, 2};
  auto options = (*FindNemesis("failover"))->options();
  auto made = MakeNemesis({{"failover", &*options}}, context);
  ASSERT_FALSE(made.ok());
  EXPECT_NE(made.error().find("no replica or peer"), std::string::npos) << made.error();
}

TEST(NemesisRegistryTest, ClientCrashNeedsTwoWorkersAndIsNotInAll) {
  SingleMaster single;
  ClientFaults client_faults;
  auto options = (*FindNemesis("client-crash"))->options();
  NemesisContext context{single, client_faults, 1, std::chrono::milliseconds(1000), nullptr, 2};
  EXPECT_TRUE(MakeNemesis({{"client-crash", &*options}}, context).ok());
  context.concurrency = 1;
  EXPECT_FALSE(MakeNemesis({{"client-crash", &*options}}, context).ok());
  const std::vector<std::string> all = AllPresetNemesisNames();
  EXPECT_EQ(std::count(all.begin(), all.end(), "client-crash"), 0);
  EXPECT_EQ(std::count(all.begin(), all.end(), "net-loss"), 0);
  EXPECT_EQ(std::count(all.begin(), all.end(), "net-slow"), 0);
  EXPECT_EQ(std::count(all.begin(), all.end(), "client-clock"), 0);
  EXPECT_EQ(all.size() + 4, NemesisNames().size());
}

}  // namespace
}  // namespace locksmith
