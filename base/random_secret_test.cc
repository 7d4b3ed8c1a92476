#include "base/random_secret.h"

#include <gtest/gtest.h>

#include <set>

namespace locksmith {
namespace {

TEST(RandomSecretTest, IsHexOfTheAskedLengthAndNeverRepeats) {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    auto secret = RandomSecret();
    ASSERT_TRUE(secret.ok()) << secret.error();
    EXPECT_EQ(secret->size(), 32u);
    EXPECT_EQ(secret->find_first_not_of("0123456789abcdef"), std::string::npos) << *secret;
    EXPECT_TRUE(seen.insert(*secret).second) << *secret;
  }
  EXPECT_EQ(RandomSecret(4)->size(), 8u);
}

}  // namespace
}  // namespace locksmith
