#include "base/text.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

namespace locksmith {
namespace {

TEST(TextTest, HostNamesOrderByTheirNumber) {
  EXPECT_TRUE(NaturalLess("n2", "n10"));
  EXPECT_FALSE(NaturalLess("n10", "n2"));
  EXPECT_TRUE(NaturalLess("c9", "n1"));
}

TEST(TextTest, DurationsReadInTheirBestUnit) {
  EXPECT_EQ(FormatDurationNs(2.408e9), "2.408 s");
  EXPECT_EQ(FormatDurationNs(12.3e6), "12.3 ms");
  EXPECT_EQ(FormatDurationNs(40), "40 ns");
}

TEST(TextTest, MillisecondsBecomeNanosecondsSaturated) {
  EXPECT_EQ(MillisToNs(1.5), 1500000);
  EXPECT_EQ(MillisToNs(-2), -2000000);
  // A results file may say anything: huge, infinite or not a number.
  EXPECT_EQ(MillisToNs(3.33333e57), INT64_MAX);
  EXPECT_EQ(MillisToNs(-std::numeric_limits<double>::infinity()), INT64_MIN);
  EXPECT_EQ(MillisToNs(std::nan("")), 0);
}

TEST(TextTest, FirstLineDropsTheRestAndTrailingBlanks) {
  EXPECT_EQ(FirstLine("ssh: connect refused \r\nsecond line\n"), "ssh: connect refused");
  EXPECT_EQ(FirstLine("no newline"), "no newline");
  EXPECT_EQ(FirstLine("\nafter an empty first line"), "");
  EXPECT_EQ(FirstLine(""), "");
}

}  // namespace
}  // namespace locksmith
