// AppendCompactJson against dump() itself: the same text for the values a
// run records, and for every kind of value the fast path hands to dump().
#include "base/json_output.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace locksmith {
namespace {

using nlohmann::json;

std::string Dumped(const json& v) {
  return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string Appended(const json& v) {
  std::string out = "prefix";
  AppendCompactJson(v, &out);
  EXPECT_EQ(out.substr(0, 6), "prefix");  // appends, keeps what was there
  return out.substr(6);
}

TEST(JsonOutputTest, WritesWhatDumpWritesForRecordedValues) {
  const json values[] = {
      nullptr,
      json::object(),
      {{"lease_ms", 1000}, {"wait_ms", 2000}},
      {{"attempts", 3},
       {"token", "0123456789abcdef0123456789abcdef"},
       {"validity_ms", -4},
       {"waited_ms", 0}},
      {{"token", "t"}, {"mode", "read"}, {"reentry", true}, {"shared", false}, {"x", nullptr}},
      {{"fence", std::numeric_limits<int64_t>::min()}, {"max", std::numeric_limits<int64_t>::max()}},
      {{"big", std::numeric_limits<uint64_t>::max()}},
      json(42),
      json(-7),
      json("plain text ~!@#$%^&*()"),
      json(true),
  };
  for (const json& v : values) EXPECT_EQ(Appended(v), Dumped(v)) << Dumped(v);
}

TEST(JsonOutputTest, HandsEverythingElseToDump) {
  const json values[] = {
      {{"ms", 1.5}},                           // a float
      {{"nested", {{"a", 1}}}},                // nesting
      {{"list", {1, 2, 3}}},                   // an array
      json::array({1, "a"}),
      {{"quote", "say \"hi\""}},               // escapes
      {{"backslash", "a\\b"}},
      {{"newline", "a\nb"}},
      {{"control", std::string("a\x01z")}},
      {{"utf8", "caf\xc3\xa9"}},               // not ASCII
      {{"invalid", std::string("a\xff")}},     // replaced by dump()
      {{"del", std::string("a\x7f")}},
      {{"k\"ey", 1}},                          // a key that needs escaping
      json(0.1),
  };
  for (const json& v : values) EXPECT_EQ(Appended(v), Dumped(v)) << Dumped(v);
}

}  // namespace
}  // namespace locksmith
