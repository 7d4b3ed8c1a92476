#include "base/json_input.h"

#include <fstream>

#include <gtest/gtest.h>

#include "base/testing/temp_dir.h"

namespace locksmith {
namespace {

std::string Nested(int depth, const std::string& inner = "1") {
  std::string text;
  for (int i = 0; i < depth; ++i) text += i % 2 ? "{\"k\":" : "[";
  text += inner;
  for (int i = depth - 1; i >= 0; --i) text += i % 2 ? "}" : "]";
  return text;
}

TEST(ParseJsonInputTest, ParsesJson) {
  auto j = ParseJsonInput(R"({"a": [1, 2.5, "x", null, true]})");
  ASSERT_TRUE(j.ok()) << j.error();
  EXPECT_EQ((*j)["a"][2], "x");
}

// Equal values of the same types throughout (json's == says an unsigned 1
// equals an integer 1).
bool SameJson(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.type() != b.type() || a.size() != b.size()) return false;
  if (a.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (!b.contains(it.key()) || !SameJson(it.value(), b[it.key()])) return false;
    }
    return true;
  }
  return a == b;
}

TEST(ParseJsonInputTest, AFlatObjectParsesAsTheFullParserParsesIt) {
  for (const char* text :
       {R"({})", R"({"a":1})", R"({"a":0})", R"({"a":-1})", R"({"a":-0})", R"({"a":01})",
        R"({"a":1.5})", R"({"a":1e3})", R"({"a":"x","b":""})", R"({"a":true,"b":false,"c":null})",
        R"({"a":1,"a":"two"})", R"({"a":18446744073709551615})", R"({"a":18446744073709551616})",
        R"({"a":-9223372036854775808})", R"({"a":-9223372036854775809})", R"({"a":"\u00e9"})",
        "{\"a\":\"\xC3\xA9\"}", R"({"a":"x\ny"})", R"({"a":[1]})", R"({"a":{"b":1}})",
        R"({ "a":1})", R"({"a":1} )", R"({"a":1}x)", R"({"a":1,})", R"({"a":tru})", R"({"a"})",
        R"({"a":-})", R"({"a":"unterminated})", R"({"token":"f3a9","validity_ms":9000})"}) {
    auto fast = ParseJsonInput(text);
    nlohmann::json full;
    bool full_ok = true;
    try {
      full = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception&) {
      full_ok = false;
    }
    ASSERT_EQ(fast.ok(), full_ok) << text;
    if (!full_ok) continue;
    EXPECT_TRUE(SameJson(*fast, full)) << text << " gave " << fast->dump();
  }
}

TEST(ParseJsonInputTest, NestingIsBoundedAtTwoHundred) {
  ASSERT_TRUE(ParseJsonInput(Nested(kMaxJsonDepth)).ok());
  auto deep = ParseJsonInput(Nested(kMaxJsonDepth + 1));
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.error(), "arrays and objects nest more than 200 deep");
  // 100,000 deep: one line of error, not a stack overflow.
  deep = ParseJsonInput(std::string(100000, '[') + std::string(100000, ']'));
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.error(), "arrays and objects nest more than 200 deep");
}

TEST(ParseJsonInputTest, BracketsInStringsAndCommentsDoNotCount) {
  const std::string brackets(500, '[');
  auto j = ParseJsonInput("{\"k\": \"" + brackets + "\\\"" + brackets + "\"}");
  ASSERT_TRUE(j.ok()) << j.error();
  j = ParseJsonInput("// " + brackets + "\n/* " + brackets + " */ [1]", JsonComments::kAllowed);
  ASSERT_TRUE(j.ok()) << j.error();
  // A comment's end is not a new comment's start.
  j = ParseJsonInput("/* x *//* y */" + Nested(kMaxJsonDepth + 1), JsonComments::kAllowed);
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.error(), "arrays and objects nest more than 200 deep");
}

TEST(ParseJsonInputTest, ANumberOutOfRangeIsAnErrorWithItsKey) {
  auto j = ParseJsonInput(R"({"stats": {"x": [1, 1e400]}})");
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.error(),
            "\"stats.x[1]\": the number 1e400 is out of range (beyond a double's +-1.8e308)");
}

TEST(ParseJsonInputTest, SyntaxErrorsSayWhereInOneShortLine) {
  auto j = ParseJsonInput("{\"a\": 1,\n \"b\": }");
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.error().rfind("not valid JSON: line 2, column 7: syntax error", 0), 0u) << j.error();
  // A 5 MB token is not echoed whole.
  j = ParseJsonInput("\"" + std::string(5 << 20, 'x') + "\n\"");
  ASSERT_FALSE(j.ok());
  EXPECT_LT(j.error().size(), 260u);
  EXPECT_EQ(j.error().find('\n'), std::string::npos);
  // Comments only where asked for.
  EXPECT_FALSE(ParseJsonInput("// c\n1").ok());
  EXPECT_TRUE(ParseJsonInput("// c\n1", JsonComments::kAllowed).ok());
}

TEST(ReadJsonInputFileTest, ErrorsNameTheFile) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/summary.json";
  std::ofstream(path) << "  \n";
  auto j = ReadJsonInputFile(path, 1000);
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.error(), path + " is empty");
  std::ofstream(path) << Nested(300);
  j = ReadJsonInputFile(path, 10000);
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.error(), path + ": arrays and objects nest more than 200 deep");
  j = ReadJsonInputFile(path, 10);
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.error().find("at most 10 bytes are allowed"), std::string::npos) << j.error();
}

TEST(JsonExcerptTest, LongValuesAreCut) {
  EXPECT_EQ(JsonExcerpt(nlohmann::json{{"type", "ok"}}), R"({"type":"ok"})");
  const std::string shown = JsonExcerpt(std::string(50 << 20, 'x'));
  EXPECT_EQ(shown, "\"" + std::string(199, 'x') + "...");
  EXPECT_EQ(JsonExcerpt(nlohmann::json::array({"\xC3\xA9\xC3\xA9\xC3\xA9"}), 4),
            "[\"\xC3\xA9\xC3\xA9...");
  // Invalid UTF-8 does not throw.
  EXPECT_EQ(JsonExcerpt(std::string("\xff")), "\"\xEF\xBF\xBD\"");
}

}  // namespace
}  // namespace locksmith
