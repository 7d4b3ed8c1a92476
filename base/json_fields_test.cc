#include "base/json_fields.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

using nlohmann::json;

TEST(JsonFieldsTest, ReadsMembersOfTheRightType) {
  const json j = {{"name", "nightly"}, {"runs", 3}, {"seed", 18446744073709551615ull},
                  {"rate", 0.5},       {"cells", json::object()}, {"list", json::array()},
                  {"none", nullptr}};
  JsonFields f(j, "");
  EXPECT_EQ(f.Text("name"), "nightly");
  EXPECT_EQ(f.Integer("runs", 0, 10), 3);
  EXPECT_EQ(f.Unsigned("seed"), 18446744073709551615ull);
  EXPECT_EQ(f.Unsigned("runs"), 3u);  // built from an int: signed, and not negative
  EXPECT_EQ(f.Number("rate"), 0.5);
  EXPECT_NE(f.Object("cells"), nullptr);
  EXPECT_NE(f.Array("list"), nullptr);
  // Absent and null members read as defaults.
  EXPECT_EQ(f.Text("missing"), "");
  EXPECT_EQ(f.Integer("none", -5, 5), 0);
  EXPECT_EQ(f.Number("none"), std::nullopt);
  EXPECT_EQ(f.Object("missing"), nullptr);
  EXPECT_TRUE(f.status().ok());
}

TEST(JsonFieldsTest, TheFirstWrongTypeIsTheProblem) {
  const json j = {{"planned_runs", "many"}, {"suite", 5}};
  JsonFields f(j, "");
  EXPECT_EQ(f.Integer("planned_runs", 0, 1000), 0);
  EXPECT_EQ(f.Text("suite"), "");
  ASSERT_FALSE(f.status().ok());
  EXPECT_EQ(f.status().error(), "\"planned_runs\" must be a whole number from 0 to 1000");
}

TEST(JsonFieldsTest, NumbersOutOfRangeAreProblemsNamedByPlace) {
  const json j = {{"repeat", -1}, {"exit_code", 1e300}, {"seed", -3}, {"n", 2.5}};
  JsonFields repeat(j, "runs[3]");
  repeat.Integer("repeat", 0, 100);
  EXPECT_EQ(repeat.status().error(), "runs[3]: \"repeat\" must be a whole number from 0 to 100");
  JsonFields code(j, "");
  code.Integer("exit_code", 0, 255);
  EXPECT_FALSE(code.status().ok());
  JsonFields seed(j, "");
  seed.Unsigned("seed");
  EXPECT_FALSE(seed.status().ok());
  JsonFields whole(j, "");
  whole.Integer("n", 0, 10);
  EXPECT_FALSE(whole.status().ok());
  // Not an object at all.
  JsonFields not_object(json::array(), "runs[0]");
  EXPECT_EQ(not_object.status().error(), "runs[0] is not an object");
}

}  // namespace
}  // namespace locksmith
