#include "checker/history.h"

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
  auto lenient = ParseHistoryJsonl(text, true);
  ASSERT_TRUE(lenient.ok());
  EXPECT_EQ(lenient->size(), 1u);
  EXPECT_FALSE(ParseHistoryJsonl(text, false).ok());
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

}  // namespace
}  // namespace locksmith
