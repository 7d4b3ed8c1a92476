#include "base/random_secret.h"

#include <gtest/gtest.h>

#include <set>

#include "base/run_secrets.h"

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

TEST(RandomSecretTest, AServerPasswordIsANewSecretEachTime) {
  auto first = NewServerPassword();
  auto second = NewServerPassword();
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->rfind("ls-", 0), 0u) << *first;
  EXPECT_EQ(first->size(), 35u);
  EXPECT_NE(*first, *second);
  EXPECT_TRUE(HoldsRunSecret(*first));  // redacted wherever the process writes it
}

}  // namespace
}  // namespace locksmith
