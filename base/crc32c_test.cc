#include "base/crc32c.h"

#include <string>

#include <gtest/gtest.h>

namespace locksmith {
namespace {

TEST(Crc32cTest, KnownValues) {
  // RFC 3720 (iSCSI) B.4 and the usual check value of "123456789".
  EXPECT_EQ(Crc32c(""), 0u);
  EXPECT_EQ(Crc32c("123456789"), 0xE3069283u);
  EXPECT_EQ(Crc32c(std::string(32, '\0')), 0x8A9136AAu);
  EXPECT_EQ(Crc32c(std::string(32, '\xFF')), 0x62A8AB43u);
}

TEST(Crc32cTest, EveryLengthAndAlignmentAgreesWithTheTable) {
  std::string bytes;
  for (int i = 0; i < 300; ++i) bytes.push_back(static_cast<char>(i * 37 + 11));
  for (size_t start = 0; start < 9; ++start) {
    for (size_t n = 0; start + n <= bytes.size(); n += 7) {
      const std::string_view piece = std::string_view(bytes).substr(start, n);
      ASSERT_EQ(Crc32c(piece), Crc32cPortable(piece)) << "start " << start << ", " << n;
    }
  }
}

}  // namespace
}  // namespace locksmith
