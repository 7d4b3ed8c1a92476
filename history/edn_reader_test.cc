#include "history/edn_reader.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

using nlohmann::json;

json Read(std::string_view text) {
  EdnReader reader(text);
  auto form = reader.ReadForm();
  EXPECT_TRUE(form.ok()) << text << ": " << form.error();
  return form.ok() ? *form : json("<error>");
}

std::string ReadError(std::string_view text) {
  EdnReader reader(text);
  auto form = reader.ReadForm();
  EXPECT_FALSE(form.ok()) << text;
  return form.ok() ? "" : form.error();
}

TEST(EdnReaderTest, Scalars) {
  EXPECT_EQ(Read("nil"), json(nullptr));
  EXPECT_EQ(Read("true"), json(true));
  EXPECT_EQ(Read("false"), json(false));
  EXPECT_EQ(Read("42"), json(42));
  EXPECT_EQ(Read("-7"), json(-7));
  EXPECT_EQ(Read("+7"), json(7));
  EXPECT_EQ(Read("12N"), json(12));
  EXPECT_EQ(Read("2.5"), json(2.5));
  EXPECT_EQ(Read("1e3"), json(1000.0));
  EXPECT_EQ(Read("1.5M"), json(1.5));
  EXPECT_EQ(Read("1/4"), json(0.25));
  EXPECT_EQ(Read("0x1F"), json(31));
  EXPECT_EQ(Read("18446744073709551615"), json(18446744073709551615ull));
}

TEST(EdnReaderTest, KeywordsSymbolsStringsCharacters) {
  EXPECT_EQ(Read(":invoke"), json("invoke"));
  EXPECT_EQ(Read(":timed-out"), json("timed-out"));
  EXPECT_EQ(Read(":jepsen.history/op"), json("jepsen.history/op"));
  EXPECT_EQ(Read("::local"), json("local"));
  EXPECT_EQ(Read("some-symbol"), json("some-symbol"));
  EXPECT_EQ(Read(R"("a \"quoted\"\n\u00e9")"), json("a \"quoted\"\n\xc3\xa9"));
  EXPECT_EQ(Read(R"(\a)"), json("a"));
  EXPECT_EQ(Read(R"(\newline)"), json("\n"));
  EXPECT_EQ(Read(R"(\u0041)"), json("A"));
}

TEST(EdnReaderTest, Collections) {
  EXPECT_EQ(Read("[1 2, 3]"), json::array({1, 2, 3}));
  EXPECT_EQ(Read("(1 (2))"), json::array({1, json::array({2})}));
  EXPECT_EQ(Read("#{:a}"), json::array({"a"}));
  EXPECT_EQ(Read("{:type :ok, :value [3 nil]}"),
            (json{{"type", "ok"}, {"value", json::array({3, nullptr})}}));
  EXPECT_EQ(Read("{1 :a}"), (json{{"1", "a"}}));
  EXPECT_EQ(Read("{}"), json::object());
}

TEST(EdnReaderTest, TagsMetadataCommentsAndDiscards) {
  EXPECT_EQ(Read("#jepsen.history.Op{:index 3}"), (json{{"index", 3}}));
  EXPECT_EQ(Read("#inst \"2020-01-01T00:00:00Z\""), json("2020-01-01T00:00:00Z"));
  EXPECT_EQ(Read("^{:meta 1} [1]"), json::array({1}));
  EXPECT_EQ(Read("; a comment\n #_ ignored [1 #_2 3]"), json::array({1, 3}));
  EXPECT_EQ(Read("##Inf"), json("##Inf"));
  EXPECT_EQ(Read("#:ns{:a 1}"), (json{{"a", 1}}));
}

TEST(EdnReaderTest, InvalidUtf8IsReplaced) {
  const json s = Read("\"bad \xff byte\"");
  EXPECT_NO_THROW(s.dump());
  EXPECT_EQ(s, json("bad \xef\xbf\xbd byte"));
}

TEST(EdnReaderTest, ErrorsSayWhatIsWrong) {
  EXPECT_NE(ReadError("[1 2").find("missing ']'"), std::string::npos);
  EXPECT_NE(ReadError("{:a}").find("odd number"), std::string::npos);
  EXPECT_NE(ReadError("\"open").find("unterminated string"), std::string::npos);
  EXPECT_NE(ReadError(")").find("unexpected ')'"), std::string::npos);
  EXPECT_NE(ReadError(std::string(1000, '[')).find("nested too deeply"), std::string::npos);
}

TEST(EdnReaderTest, TracksLines) {
  EdnReader reader("1\n2\n\n[3\n4]");
  for (int expected_line : {1, 2, 4}) {
    ASSERT_TRUE(reader.SkipIgnorable().ok());
    EXPECT_EQ(reader.line(), static_cast<size_t>(expected_line));
    ASSERT_TRUE(reader.ReadForm().ok());
  }
  EXPECT_EQ(reader.line(), 5u);
}

}  // namespace
}  // namespace locksmith
