#include "reports/packed_table.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace locksmith {
namespace {

std::string Pack(const std::vector<int64_t>& a, bool a_signed, const std::vector<int64_t>& b,
                 bool b_signed) {
  std::string out;
  AppendPackedTable(&out, {{&a, a_signed}, {&b, b_signed}});
  return out;
}

TEST(PackedTableTest, RoundTripsEveryMagnitudeRowByRow) {
  std::vector<int64_t> s = {0, 1, -1, 2, -2, 15, -16, 16, 31, 32, 1887, 1888, -1888, 6'000'000,
                            1'700'000'000'000, -1'700'000'000'000,
                            std::numeric_limits<int64_t>::max(),
                            std::numeric_limits<int64_t>::min()};
  for (int64_t v = 1; v < (int64_t{1} << 62); v *= 3) s.push_back(v), s.push_back(-v);
  std::vector<int64_t> u;
  for (size_t i = 0; i < s.size(); ++i) u.push_back(s[i] == INT64_MIN ? 0 : s[i] < 0 ? -s[i] : s[i]);
  const auto back = UnpackTable(Pack(s, true, u, false), {true, false});
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ((*back)[0], s);
  EXPECT_EQ((*back)[1], u);
  const auto none = UnpackTable(Pack({}, true, {}, false), {true, false});
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE((*none)[0].empty());
}

TEST(PackedTableTest, SmallNumbersTakeOneCharacterAndTimesFewerThanJson) {
  // Rows (0, 0), (1, -1), (31, 15): unsigned then signed, one character each.
  EXPECT_EQ(Pack({0, 1, 31}, false, {0, -1, 15}, true), "!!##BA");
  EXPECT_EQ(Pack({32}, false, {16}, true).size(), 4u);
  EXPECT_EQ(Pack({3'000'000}, false, {-3'000'000}, true).size(), 8u);  // 3 ms in ns
  // 55 min in ns: 13 digits in JSON.
  EXPECT_EQ(Pack({3'300'000'000'000}, false, {0}, true).size(), 8u + 1);
}

TEST(PackedTableTest, NeedsNoEscapingInJsonOrScript) {
  const std::string_view alphabet = PackedTableAlphabet();
  EXPECT_EQ(alphabet.size(), 91u);
  for (char c : alphabet) {
    EXPECT_GT(c, ' ');
    EXPECT_LT(c, 0x7F);
    EXPECT_NE(c, '"');
    EXPECT_NE(c, '\\');
    EXPECT_NE(c, '<');
  }
}

TEST(PackedTableTest, RejectsForeignCharactersAndPartialRows) {
  EXPECT_FALSE(UnpackTable("!<", {false, false}).has_value());
  EXPECT_FALSE(UnpackTable("!\xC3\xA9", {false, false}).has_value());
  EXPECT_FALSE(UnpackTable("!!!", {false, false}).has_value());  // a row and a half
  std::string cut = Pack({3'000'000}, false, {1}, true);
  cut.pop_back();
  EXPECT_FALSE(UnpackTable(cut, {false, true}).has_value());  // no second field
  cut.pop_back();
  EXPECT_FALSE(UnpackTable(cut, {false}).has_value());  // a number without its final digit
  EXPECT_FALSE(UnpackTable("!", {}).has_value());
}

}  // namespace
}  // namespace locksmith
