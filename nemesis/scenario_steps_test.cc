#include "nemesis/scenario_steps.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

const std::vector<FamilyOpNames> kFamilies = {
    {"kill", {"kill"}, "restart"}, {"client-pause", {"client-pause"}, "client-resume"}};

Result<std::vector<ScheduledFault>> Parse(const std::string& text, double limit_s = 60) {
  return ParseScenarioSteps(nlohmann::json::parse(text), kFamilies, limit_s);
}

TEST(ScenarioStepsTest, TimedAndEventStepsBecomeNumberedWindows) {
  auto steps = Parse(R"([
    {"at_ms": 2000, "f": "kill", "value": {"target": "primary"}},
    {"after": {"f": "acquire", "key": "lock-0"}, "delay_ms": 50, "f": "client-pause",
     "value": {"ms": 2500, "process": "$event.process"}},
    {"at_ms": 5000, "f": "restart"},
    {"at_ms": 9000, "f": "client-resume"}
  ])");
  ASSERT_TRUE(steps.ok()) << steps.error();
  ASSERT_EQ(steps->size(), 4u);
  const auto& s = *steps;
  EXPECT_EQ(s[0].at_ms, 2000);
  EXPECT_EQ(s[0].mark, (FaultMark{0, "kill", true}));
  EXPECT_EQ(s[0].op.value, nlohmann::json({{"target", "primary"}}));
  ASSERT_TRUE(s[1].after.has_value());
  EXPECT_EQ(*s[1].after, (StepTrigger{"acquire", "lock-0"}));
  EXPECT_EQ(s[1].at_ms, 50);  // the delay after the event
  EXPECT_EQ(s[1].mark, (FaultMark{1, "client-pause", true}));
  EXPECT_EQ(s[2].mark, (FaultMark{0, "kill", false}));
  EXPECT_EQ(s[3].mark, (FaultMark{1, "client-pause", false}));
  EXPECT_EQ(FamiliesOfSteps(s), (std::vector<std::string>{"kill", "client-pause"}));
  EXPECT_EQ(TriggersOfSteps(s), (std::vector<StepTrigger>{{"acquire", "lock-0"}}));
}

TEST(ScenarioStepsTest, AStepMayNameTheNodesThatGrantedTheEvent) {
  auto steps = Parse(R"([
    {"after": {"f": "acquire", "key": "lock-0"}, "f": "kill",
     "value": {"node": "$event.granted.0"}},
    {"at_ms": 5000, "f": "restart"}
  ])");
  ASSERT_TRUE(steps.ok()) << steps.error();
  EXPECT_EQ((*steps)[0].op.value, nlohmann::json({{"node", "$event.granted.0"}}));
  EXPECT_FALSE(Parse(R"([{"at_ms": 10, "f": "kill", "value": {"node": "$event.grant"}}])").ok());
}

TEST(ScenarioStepsTest, BadStepsAreOneLineNamingTheStep) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"at_ms": 1})", "\"steps\" must be a list"},
      {R"([{"at_ms": 1, "f": "meteor"}])", "step 1: unknown fault \"meteor\" (known: kill, "},
      {R"([{"at_ms": 1, "f": "kill", "value": {"target": "n1,,n2"}}])", "step 1: target"},
      {R"([{"at_ms": 5000, "f": "kill"}, {"at_ms": 1000, "f": "restart"}])",
       "step 2: at 1000 ms is in the past"},
      {R"([{"at_ms": -5, "f": "kill"}])", "step 1: \"at_ms\" must be whole milliseconds"},
      {R"([{"at_ms": "5s", "f": "kill"}])", "step 1: \"at_ms\" must be whole milliseconds"},
      {R"([{"at_ms": 1.5, "f": "kill"}])", "step 1: \"at_ms\" must be whole milliseconds"},
      {R"([{"at_ms": 60000, "f": "kill"}])", "step 1: at 60000 ms is not before the time limit"},
      {R"([{"at_ms": 1, "f": "restart"}])", "step 1: restart ends no open kill fault"},
      {R"([{"at_ms": 1, "f": "kill"}, {"at_ms": 2, "f": "kill"}])", "step 2: kill begins a kill"},
      {R"([{"f": "kill"}])", "step 1: give either \"at_ms\" or \"after\""},
      {R"([{"after": {"f": "acquire"}, "at_ms": 3, "f": "kill"}])", "step 1: give either"},
      {R"([{"after": "acquire", "f": "kill"}])", "step 1: \"after\" must be"},
      {R"([{"at_ms": 1, "f": "kill", "when": 3}])", "step 1: unknown key \"when\""},
      {R"([7])", "step 1: a step must be a JSON object"},
  };
  for (const auto& [text, expected] : cases) {
    auto steps = Parse(text);
    ASSERT_FALSE(steps.ok()) << text;
    EXPECT_EQ(steps.error().find('\n'), std::string::npos) << steps.error();
    EXPECT_EQ(steps.error().rfind(expected, 0), 0u) << text << "\n  " << steps.error();
  }
}

TEST(ScenarioStepsTest, AnOpenWindowAtTheEndIsFineTheHealClosesIt) {
  auto steps = Parse(R"([{"at_ms": 1000, "f": "kill", "value": {"node": "n1"}}])");
  ASSERT_TRUE(steps.ok()) << steps.error();
  EXPECT_TRUE(steps->front().mark.begins);
}

}  // namespace
}  // namespace locksmith
