#include "history/jepsen_import.h"

#include <gtest/gtest.h>

#include "history/history_file.h"

namespace locksmith {
namespace {

using nlohmann::json;

History MustParse(Result<History> parsed) {
  EXPECT_TRUE(parsed.ok()) << parsed.error();
  return parsed.ok() ? std::move(parsed).value() : History{};
}

TEST(JepsenEdnTest, AFormThatIsNoOpMapIsQuotedShort) {
  // A 5 MB string where an op map should be: the error quotes 200 characters.
  auto h = ParseJepsenEdnHistory("[\"" + std::string(5 << 20, 'x') + "\"]", "h.edn");
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.error(), "h.edn:1: expected an op map, got \"" + std::string(199, 'x') + "...");
  // So is an op type that is no op type.
  h = ParseJepsenEdnHistory("{:type :" + std::string(1000, 'y') + ", :process 0, :f :read}", "h");
  ASSERT_FALSE(h.ok());
  EXPECT_LT(h.error().size(), 200u) << h.error();
}

TEST(JepsenEdnTest, VectorOfOpMaps) {
  const History h = MustParse(ParseJepsenEdnHistory(R"([
    {:type :invoke, :f :cas, :value [1 2], :process 3, :time 10, :index 0}
    {:type :info, :f :cas, :value [1 2], :process 3, :time 20, :index 1, :error :timed-out}
    {:type :info, :f :start, :value nil, :process :nemesis, :index 2}
  ])", "h.edn"));
  ASSERT_EQ(h.size(), 3u);
  EXPECT_EQ(h[0].type, OpType::kInvoke);
  EXPECT_EQ(h[0].f, "cas");
  EXPECT_EQ(h[0].value, json::array({1, 2}));
  EXPECT_EQ(h[0].process, 3);
  EXPECT_EQ(h[0].time, 10);
  EXPECT_EQ(h[1].type, OpType::kInfo);
  EXPECT_EQ(h[1].error, "timed-out");
  EXPECT_TRUE(h[2].is_nemesis());
}

TEST(JepsenEdnTest, OneMapPerLineWithoutIndices) {
  const History h = MustParse(ParseJepsenEdnHistory(
      "; a history\n"
      "{:type :invoke, :f :read, :value nil, :process 0}\n"
      "{:type :ok, :f :read, :value 3, :process 0}\n"
      "#jepsen.history.Op{:index 7, :type :invoke, :f :write, :value 1, :process 1}\n",
      "h.edn"));
  ASSERT_EQ(h.size(), 3u);
  EXPECT_EQ(h[0].index, 0);
  EXPECT_EQ(h[1].index, 1);
  EXPECT_TRUE(h[0].value.is_null());
  EXPECT_EQ(h[1].value, 3);
  EXPECT_EQ(h[2].index, 7);
}

TEST(JepsenEdnTest, ListOfMapsAndIndependentTuples) {
  const History h = MustParse(ParseJepsenEdnHistory(
      "({:type :invoke :f :write :value [:k1 4] :process 2})", "h.edn"));
  ASSERT_EQ(h.size(), 1u);
  EXPECT_EQ(h[0].value, json::array({"k1", 4}));
}

TEST(JepsenEdnTest, MalformedInputNamesFileAndLine) {
  auto bad_type = ParseJepsenEdnHistory(
      "{:type :invoke, :f :read, :process 0}\n"
      "{:type :maybe, :f :read, :process 0}\n",
      "h.edn");
  ASSERT_FALSE(bad_type.ok());
  EXPECT_EQ(bad_type.error().rfind("h.edn:2: ", 0), 0u) << bad_type.error();
  EXPECT_NE(bad_type.error().find("maybe"), std::string::npos);

  auto unterminated = ParseJepsenEdnHistory("[{:type :invoke\n :f :read\n :process 0}\n{:type",
                                            "x.edn");
  ASSERT_FALSE(unterminated.ok());
  EXPECT_EQ(unterminated.error().rfind("x.edn:4: ", 0), 0u) << unterminated.error();

  auto no_process = ParseJepsenEdnHistory("\n\n{:type :ok :f :read}", "y.edn");
  ASSERT_FALSE(no_process.ok());
  EXPECT_EQ(no_process.error(), "y.edn:3: op map has no :process");

  auto not_a_map = ParseJepsenEdnHistory("[1 2]", "z.edn");
  ASSERT_FALSE(not_a_map.ok());
  EXPECT_EQ(not_a_map.error().rfind("z.edn:1: expected an op map", 0), 0u);
}

TEST(JepsenLogTest, OpLinesAndTimeouts) {
  const History h = MustParse(ParseJepsenLogHistory(
      "2017-01-01 12:00:00,000{GMT}\tINFO\t[main] jepsen.core - Running test\n"
      "INFO  jepsen.util - 2\t:invoke\t:cas\t[3 0]\n"
      "INFO  jepsen.util - 0\t:invoke\t:read\tnil\n"
      "INFO  jepsen.util - 2\t:info\t:cas\t:timed-out\n"
      "INFO  jepsen.util - 0\t:ok\t:read\t4\n"
      "INFO  jepsen.util - :nemesis\t:info\t:start\t[:isolated {\"n1\" #{\"n2\"}}]\n"
      "INFO  jepsen.util - 1\t:fail\t:read\t:timed-out\tsome error text\n"
      "INFO  jepsen.util - Something else entirely\n",
      "etcd.log"));
  ASSERT_EQ(h.size(), 6u);
  EXPECT_EQ(h[0].process, 2);
  EXPECT_EQ(h[0].f, "cas");
  EXPECT_EQ(h[0].value, json::array({3, 0}));
  EXPECT_EQ(h[0].index, 0);
  EXPECT_TRUE(h[1].value.is_null());
  EXPECT_EQ(h[2].type, OpType::kInfo);
  EXPECT_EQ(h[2].value, "timed-out");
  EXPECT_EQ(h[3].value, 4);
  EXPECT_TRUE(h[4].is_nemesis());
  EXPECT_EQ(h[5].type, OpType::kFail);
  EXPECT_EQ(h[5].error, "some error text");
  EXPECT_EQ(h[5].index, 5);
}

TEST(JepsenLogTest, BadValueNamesTheLine) {
  auto parsed = ParseJepsenLogHistory(
      "INFO  jepsen.util - 2\t:invoke\t:cas\t[3 0]\n"
      "INFO  jepsen.util - 2\t:ok\t:cas\t[3 0\n",
      "etcd.log");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().rfind("etcd.log:2: ", 0), 0u) << parsed.error();
}

TEST(HistoryFileTest, DetectsFormats) {
  EXPECT_EQ(DetectHistoryFormat("{:type :invoke}"), HistoryFormat::kEdn);
  EXPECT_EQ(DetectHistoryFormat("; comment\n[{:type :invoke}]"), HistoryFormat::kEdn);
  EXPECT_EQ(DetectHistoryFormat("#jepsen.history.Op{}"), HistoryFormat::kEdn);
  EXPECT_EQ(DetectHistoryFormat("{\"index\":0}"), HistoryFormat::kJsonl);
  EXPECT_EQ(DetectHistoryFormat("INFO  jepsen.util - 0\t:invoke\t:read\tnil"),
            HistoryFormat::kJepsenLog);
  EXPECT_EQ(DetectHistoryFormat("INFO  jepsen.core - starting\nINFO  jepsen.util - 1\t:ok"),
            HistoryFormat::kJepsenLog);
  EXPECT_EQ(DetectHistoryFormat(""), HistoryFormat::kEdn);
  EXPECT_EQ(DetectHistoryFormat("hello world"), std::nullopt);
}

TEST(HistoryFileTest, JsonlErrorsUseFileColonLine) {
  auto parsed = ParseHistoryText(
      "{\"index\":0,\"time\":1,\"process\":0,\"type\":\"invoke\",\"f\":\"acquire\"}\n"
      "{\"index\":1,\"time\":2,\"process\":0,\"type\":\"okay\",\"f\":\"acquire\"}\n",
      "", "run/history.jsonl");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().rfind("run/history.jsonl:2: ", 0), 0u) << parsed.error();
}

TEST(HistoryFileTest, UnknownFormatAndMissingFile) {
  EXPECT_FALSE(ParseHistoryText("x", "yaml", "f").ok());
  auto undetectable = ParseHistoryText("hello", "", "f.txt");
  ASSERT_FALSE(undetectable.ok());
  EXPECT_NE(undetectable.error().find("--format"), std::string::npos);
  auto missing = LoadHistoryFile("/nonexistent/history.edn", "");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("/nonexistent/history.edn"), std::string::npos);
}

}  // namespace
}  // namespace locksmith
