// LeaderElectedService on FakeHosts: the leader its servers name is the
// table's primary and Primary(); a killed leader leaves the table at once
// and who leads next is asked once what was learned is stale.
#include "backends/leader_elected_service.h"

#include <gtest/gtest.h>

#include <thread>

#include "cluster/testing/fake_host.h"

namespace locksmith {
namespace {

using namespace std::chrono_literals;
using testing::FakeHost;

// The role its peers have in the table when they do not lead.
constexpr char kPeerRole[] = "peer";

// Two peers whose leader is whatever `leader` says (none while empty).
class TwoPeerService : public LeaderElectedService {
 public:
  TwoPeerService(FakeHost& a, FakeHost& b)
      : LeaderElectedService({"test", "test peer", "peers", ""}) {
    for (FakeHost* host : {&a, &b}) {
      AddServer({{host->Name(), kPeerRole, host->Name(), "peer", host->Address(), 7000},
                 host, "the test peer", "peer.log", 200ms});
    }
  }

  Status Start() override {
    for (const auto& server : servers_.all()) {
      if (Status s = server->Launch({{}, {}, {"peer"}}, {[] { return OkStatus(); }, 1ms}); !s) {
        return s;
      }
    }
    return OkStatus();
  }
  std::unique_ptr<LockClient> NewClient(boost::asio::any_io_executor, const ClientSlot&) override {
    return nullptr;
  }

  std::string leader;
  mutable int asked = 0;

 private:
  Status Relaunch(size_t) override { return OkStatus(); }
  Result<std::string> AskLeader() const override {
    ++asked;
    if (leader.empty()) return Error{"no test peer leads now"};
    return leader;
  }
};

std::string RoleOf(const NodeTable& table, const std::string& name) {
  return FindServiceNode(table, name)->role;
}

TEST(LeaderElectedServiceTest, TheLeaderNamedIsThePrimaryAndAKilledLeaderIsAskedForAgain) {
  FakeHost a("a");
  FakeHost b("b");
  TwoPeerService service(a, b);
  ASSERT_TRUE(service.Start().ok());
  EXPECT_TRUE(service.Promotes());
  EXPECT_EQ(service.Primary().error(), "no test peer leads now");

  service.leader = "b";
  EXPECT_EQ(*service.Primary(), "b");
  const int asked = service.asked;
  NodeTable table = service.Table();  // from what Primary() just learned
  EXPECT_EQ(service.asked, asked);
  EXPECT_EQ(RoleOf(table, "a"), kPeerRole);
  EXPECT_EQ(RoleOf(table, "b"), kPrimaryRole);

  // Killed, the leader leaves the table at once; who leads next is asked
  // once what was learned is stale.
  ASSERT_TRUE(service.KillNode("b").ok());
  EXPECT_FALSE(service.IsUp("b"));
  service.leader = "a";
  table = service.Table();
  EXPECT_EQ(RoleOf(table, "b"), kPeerRole);
  std::this_thread::sleep_for(150ms);
  table = service.Table();
  EXPECT_EQ(RoleOf(table, "a"), kPrimaryRole);
  EXPECT_EQ(RoleOf(table, "b"), kPeerRole);
}

}  // namespace
}  // namespace locksmith
