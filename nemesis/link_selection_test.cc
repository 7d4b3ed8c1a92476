#include "nemesis/link_selection.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "backends/client_faults.h"
#include "backends/testing/fake_lock_service.h"
#include "cluster/testing/fake_cluster.h"

namespace locksmith {
namespace {

// A link family of the test's own: its options are the links and nothing else.
struct DropOptions : LinkSelection {
  void Declare(OptionSet& set) { DeclareLinks(set, "drop", "drop packets", "a drop"); }
};

TEST(LinkSelectionTest, DeclaresTheFamilysFlagsWithItsWords) {
  LinkSelection links;
  OptionSet set;
  links.DeclareLinks(set, "drop", "drop packets", "a drop");
  std::vector<std::string> flags;
  for (const auto& spec : set.Specs()) flags.push_back(spec.flag);
  EXPECT_EQ(flags, (std::vector<std::string>{"--drop-shape", "--drop-target", "--drop-clients",
                                             "--drop-ms"}));
  const OptionSpec* shape = set.Find("drop_shape");
  ASSERT_NE(shape, nullptr);
  EXPECT_EQ(shape->help.rfind("which links drop packets, as a partition", 0), 0u) << shape->help;
  // A scripted step's lists of nodes are no shape a window picks.
  EXPECT_EQ(std::count(shape->choices.begin(), shape->choices.end(), "components"), 0);
  EXPECT_EQ(set.Find("drop_ms")->help.rfind("ms a drop lasts before the heal", 0), 0u);
  ASSERT_TRUE(set.Merge({{"drop_ms", 1200}, {"drop_shape", "isolate"}}).ok());
  EXPECT_EQ(links.ms, 1200);
  EXPECT_EQ(links.shape, "isolate");
}

TEST(LinkSelectionTest, CheckNamesTheFamilysFlag) {
  LinkSelection links;
  EXPECT_TRUE(links.CheckLinks("drop").ok());
  links.target = "no-such,,";
  auto bad_target = links.CheckLinks("drop");
  ASSERT_FALSE(bad_target.ok());
  EXPECT_EQ(bad_target.error().rfind("--drop-target: ", 0), 0u) << bad_target.error();
  links.target = "one";
  links.clients = "x";
  auto bad_clients = links.CheckLinks("drop");
  ASSERT_FALSE(bad_clients.ok());
  EXPECT_NE(bad_clients.error().find("--drop-clients"), std::string::npos) << bad_clients.error();
}

TEST(LinkSelectionTest, ValueHoldsWhatTheShapeReads) {
  LinkSelection links;
  links.target = "majority";
  links.clients = "half";
  nlohmann::json value = {{"probability", 0.5}};
  links.AddLinksTo(value);
  EXPECT_EQ(value, (nlohmann::json{{"probability", 0.5}, {"shape", "auto"},
                                   {"target", "majority"}, {"clients", "half"}}));
  links.shape = "isolate";
  value = nlohmann::json::object();
  links.AddLinksTo(value);
  EXPECT_EQ(value, (nlohmann::json{{"shape", "isolate"}, {"target", "majority"}}));
  links.shape = "clients-from-nodes";
  value = nlohmann::json::object();
  links.AddLinksTo(value);
  EXPECT_EQ(value, (nlohmann::json{{"shape", "clients-from-nodes"}, {"clients", "half"}}));
  links.shape = "halves";
  value = nlohmann::json::object();
  links.AddLinksTo(value);
  EXPECT_EQ(value, (nlohmann::json{{"shape", "halves"}}));
}

TEST(LinkSelectionTest, LoopbackHostsAreUnfitForTheFamily) {
  testing::FakeCluster cluster({"n1"}, "tag001");  // no FakeNet: the controller's network
  testing::ClusterTableService service(cluster);
  ClientFaults client_faults;
  OptionsOf<DropOptions> options;
  const NemesisContext context{service, client_faults,
                               1, std::chrono::milliseconds(1000), &cluster, 2};
  EXPECT_EQ(LinkFaultUnfit("net-drop", options, context),
            "--nemesis net-drop needs hosts with networks of their own: run as root, without "
            "--loopback");
}

}  // namespace
}  // namespace locksmith
