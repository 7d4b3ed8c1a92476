#include "base/json_text.h"

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace locksmith {
namespace {

std::string Dump(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

TEST(JsonTextTest, WritesWhatDumpWrites) {
  const std::vector<nlohmann::json> values = {
      nlohmann::json::object(),
      {{"token", "a1"}, {"lease_ms", 900}},
      {{"z", -5}, {"a", 18446744073709551615u}, {"m", true}, {"n", nullptr}, {"f", false}},
      {{"min", INT64_MIN}, {"zero", 0}, {"s", ""}},
      // Everything else takes dump's way: escapes, UTF-8, floats, nesting.
      {{"quote", "a\"b"}, {"slash", "a\\b"}, {"tab", "a\tb"}},
      {{"utf8", "h\xC3\xA9llo"}, {"bad", "\xFF"}},
      {{"ms", 1.5}, {"nested", {{"a", 1}}}, {"list", {1, 2}}},
      {{"k\x01", 1}},
      nlohmann::json::array({1, "a"}),
      "text",
      42,
      nullptr,
  };
  std::string text = "left over";
  for (const auto& v : values) {
    CompactJsonText(v, &text);
    EXPECT_EQ(text, Dump(v)) << Dump(v);
  }
}

}  // namespace
}  // namespace locksmith
