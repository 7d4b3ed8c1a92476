#include "nemesis/process_checks.h"

#include <gtest/gtest.h>

#include "cluster/testing/fake_host.h"
#include "nemesis/pause_nemesis.h"

namespace locksmith {
namespace {

using testing::FakeHost;

// /proc/<pid>/stat of a process in `state`, its name holding a space and a
// parenthesis as a program's may.
std::string StatLine(char state) {
  return std::string("4242 (redis (x) server) ") + state +
         " 1 4242 4242 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 12345 0 0\n";
}

TEST(ProcessChecksTest, TheStateIsReadOnTheProcesssHost) {
  FakeHost host("n1");
  host.SetExecResult({0, StatLine('T')});
  auto state = ProcessStateOn(host, 4242);
  ASSERT_TRUE(state.ok()) << state.error();
  EXPECT_EQ(*state, 'T');
  ASSERT_EQ(host.execs().size(), 1u);
  EXPECT_EQ(host.execs()[0], (std::vector<std::string>{"cat", "/proc/4242/stat"}));

  host.SetExecResult({1, "cat: /proc/4242/stat: No such file or directory"});
  EXPECT_NE(ProcessStateOn(host, 4242).error().find("No such file"), std::string::npos);
  host.SetExecResult({0, "garbage"});
  EXPECT_FALSE(ProcessStateOn(host, 4242).ok());
  EXPECT_FALSE(ProcessStateOn(host, -1).ok());
}

// Nodes whose processes all live on one fake host.
class OneHostProcesses : public HasNodeProcesses {
 public:
  std::optional<NodeProcess> ProcessOf(const std::string& node) override {
    if (node != "n1") return std::nullopt;
    return NodeProcess{&host, 4242};
  }
  FakeHost host{"h1"};
};

TEST(ProcessChecksTest, APauseIsObservedWhenTheProcessIsStopped) {
  OneHostProcesses processes;
  processes.host.SetExecResult({0, StatLine('T')});
  nlohmann::json seen = nlohmann::json::object();
  EXPECT_EQ(StoppedOnItsHost(&processes, "n1", seen), std::optional<bool>(true));
  EXPECT_EQ(seen, nlohmann::json({{"pid", 4242}, {"state", "T"}}));

  // Still running after the wait: not observed, and the state says why.
  processes.host.SetExecResult({0, StatLine('S')});
  seen = nlohmann::json::object();
  EXPECT_EQ(StoppedOnItsHost(&processes, "n1", seen, std::chrono::milliseconds(0)),
            std::optional<bool>(false));
  EXPECT_EQ(seen["state"], "S");

  seen = nlohmann::json::object();
  EXPECT_EQ(StoppedOnItsHost(&processes, "n2", seen), std::optional<bool>(false));
  EXPECT_EQ(seen["error"], "no process to check");
  EXPECT_EQ(StoppedOnItsHost(nullptr, "n1", seen), std::nullopt) << "nothing to check with";
}

}  // namespace
}  // namespace locksmith
