#include "history/history.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

TEST(HistoryTest, RoundTripsEveryField) {
  Op op;
  op.index = 13;
  op.time = 813990122;
  op.process = 3;
  op.type = OpType::kOk;
  op.f = "acquire";
  op.key = "lock-0";
  op.value = {{"token", "9f"}, {"fence", 17}, {"validity_ms", 9870}};
  op.error = "";
  auto parsed = ParseOpLine(OpToJsonLine(op));
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(parsed->index, 13);
  EXPECT_EQ(parsed->time, 813990122);
  EXPECT_EQ(parsed->process, 3);
  EXPECT_EQ(parsed->type, OpType::kOk);
  EXPECT_EQ(parsed->f, "acquire");
  EXPECT_EQ(parsed->key, "lock-0");
  EXPECT_EQ(parsed->value["fence"], 17);
  EXPECT_EQ(parsed->value["token"], "9f");
}

TEST(HistoryTest, NemesisProcessRoundTrips) {
  auto op = ParseOpLine(
      R"({"index":40,"time":915000000,"process":"nemesis","type":"info","f":"clock-bump","value":{"node":"n3","ms":60000}})");
  ASSERT_TRUE(op.ok()) << op.error();
  EXPECT_TRUE(op->is_nemesis());
  EXPECT_EQ(op->type, OpType::kInfo);
  EXPECT_NE(OpToJsonLine(*op).find("\"process\":\"nemesis\""), std::string::npos);
}

TEST(HistoryTest, ServiceEventsRoundTripAsTheirOwnProcess) {
  auto op = ParseOpLine(
      R"({"index":3,"time":9,"process":"service","type":"info","f":"leader-elected",)"
      R"("value":{"from":"n1","to":"n2"}})");
  ASSERT_TRUE(op.ok()) << op.error();
  EXPECT_TRUE(op->is_service_event());
  EXPECT_FALSE(op->is_client());
  EXPECT_FALSE(op->is_nemesis());
  EXPECT_NE(OpToJsonLine(*op).find("\"process\":\"service\""), std::string::npos);
  EXPECT_FALSE(ParseOpLine(R"({"index":3,"time":9,"process":"zk","type":"info","f":"x"})").ok());
}

// Histories written when Redis Sentinel's events were the only service
// events named the process after it: they read as the service's events.
TEST(HistoryTest, TheServiceProcesssFormerNameReadsAsTheServiceProcess) {
  auto op = ParseOpLine(
      R"({"index":3,"time":9,"process":"sentinel","type":"info","f":"+switch-master",)"
      R"("value":{"from":"n1","to":"n2"}})");
  ASSERT_TRUE(op.ok()) << op.error();
  EXPECT_EQ(op->process, kServiceProcess);
  EXPECT_NE(OpToJsonLine(*op).find("\"process\":\"service\""), std::string::npos);
}

TEST(HistoryTest, FaultWindowMarksRoundTripAndAreChecked) {
  Op op;
  op.process = kNemesisProcess;
  op.type = OpType::kInvoke;
  op.f = "kill";
  op.fault = FaultMark{4, "kill", true}.ToJson();
  auto parsed = ParseOpLine(OpToJsonLine(op));
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  auto mark = FaultMarkFromJson(parsed->fault);
  ASSERT_TRUE(mark.ok()) << mark.error();
  EXPECT_EQ(*mark, (FaultMark{4, "kill", true}));
  EXPECT_EQ(OpToJsonLine(Op{}).find("fault"), std::string::npos);  // only where there is one

  const std::string head = R"({"index":1,"time":2,"process":"nemesis","type":"info","f":"kill",)";
  for (const char* bad : {R"("fault":7})", R"("fault":{"family":"kill","phase":"end"}})",
                          R"("fault":{"window":-1,"family":"kill","phase":"end"}})",
                          R"("fault":{"window":1,"family":"","phase":"end"}})",
                          R"("fault":{"window":1,"family":"kill","phase":"later"}})"}) {
    auto r = ParseOpLine(head + bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().find("\"fault\""), std::string::npos) << r.error();
  }
}

TEST(HistoryTest, RejectsMalformedLinesWithLineNumber) {
  std::string text =
      "{\"index\":0,\"time\":1,\"process\":0,\"type\":\"invoke\",\"f\":\"acquire\"}\n"
      "{\"index\":1,\"time\":2,\"process\":0,\"type\":\"maybe\",\"f\":\"acquire\"}\n";
  auto h = ParseHistoryJsonl(text);
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.error().find("line 2"), std::string::npos) << h.error();
  EXPECT_NE(h.error().find("maybe"), std::string::npos) << h.error();
}

TEST(HistoryTest, RejectsNegativeProcessAndMissingFields) {
  EXPECT_FALSE(ParseOpLine(R"({"index":0,"time":1,"process":-4,"type":"ok","f":"x"})").ok());
  EXPECT_FALSE(ParseOpLine(R"({"index":0,"process":1,"type":"ok","f":"x"})").ok());
  EXPECT_FALSE(ParseOpLine(R"({"index":0,"time":1,"process":1,"type":"ok"})").ok());
  EXPECT_FALSE(ParseOpLine("[1,2]").ok());
}

TEST(HistoryTest, DropsTailCutShortByCrashOnlyWhenAllowed) {
  std::string text =
      "{\"index\":0,\"time\":1,\"process\":0,\"type\":\"invoke\",\"f\":\"acquire\"}\n"
      "{\"index\":1,\"time\":2,\"proc";
  std::vector<SkippedLine> skipped;
  auto lenient = ParseHistoryJsonl(text, true, &skipped);
  ASSERT_TRUE(lenient.ok());
  EXPECT_EQ(lenient->size(), 1u);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0].line, 2);
  // The position is within the line (no "line 1"): the line is named apart.
  EXPECT_EQ(skipped[0].reason.rfind("not valid JSON: column ", 0), 0u) << skipped[0].reason;
  EXPECT_FALSE(ParseHistoryJsonl(text, false).ok());
  // A whole last line without its newline is kept, and nothing is skipped.
  skipped.clear();
  auto whole = ParseHistoryJsonl(text.substr(0, text.find('\n')), true, &skipped);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->size(), 1u);
  EXPECT_TRUE(skipped.empty());
}

TEST(HistoryTest, PairsCompletionsPerProcess) {
  History h(5);
  h[0] = {0, 0, 1, OpType::kInvoke, "acquire", "k", nullptr, ""};
  h[1] = {1, 1, 2, OpType::kInvoke, "acquire", "k", nullptr, ""};
  h[2] = {2, 2, 2, OpType::kFail, "acquire", "k", nullptr, ""};
  h[3] = {3, 3, 1, OpType::kOk, "acquire", "k", nullptr, ""};
  h[4] = {4, 4, 3, OpType::kInvoke, "release", "k", nullptr, ""};
  auto c = PairCompletions(h);
  EXPECT_EQ(c[0], 3);
  EXPECT_EQ(c[1], 2);
  EXPECT_EQ(c[4], -1);
  EXPECT_EQ(c[2], -1);
}

// The nemesis's lanes overlap: its ops pair by fault window, not by order.
TEST(HistoryTest, PairsTheNemesisOpsByTheirFaultWindow) {
  const nlohmann::json pause = FaultMark{0, "pause", true}.ToJson();
  const nlohmann::json stall = FaultMark{1, "client-pause", true}.ToJson();
  const nlohmann::json resume = FaultMark{0, "pause", false}.ToJson();
  History h(6);
  h[0] = {0, 0, kNemesisProcess, OpType::kInvoke, "pause", "", nullptr, "", pause};
  h[1] = {1, 1, kNemesisProcess, OpType::kInfo, "pause", "", nullptr, "", pause};
  h[2] = {2, 2, kNemesisProcess, OpType::kInvoke, "client-pause", "", nullptr, "", stall};
  h[3] = {3, 3, kNemesisProcess, OpType::kInvoke, "resume", "", nullptr, "", resume};
  h[4] = {4, 4, kNemesisProcess, OpType::kInfo, "resume", "", nullptr, "", resume};
  h[5] = {5, 5, kNemesisProcess, OpType::kInfo, "client-pause", "", nullptr, "", stall};
  auto c = PairCompletions(h);
  EXPECT_EQ(c[0], 1);
  EXPECT_EQ(c[2], 5);
  EXPECT_EQ(c[3], 4);
}

}  // namespace
}  // namespace locksmith
