#include "base/run_secrets.h"

#include <gtest/gtest.h>

#include "base/random_secret.h"

namespace locksmith {
namespace {

TEST(RunSecretsTest, EveryRandomSecretIsRedactedFromWhateverHoldsIt) {
  auto secret = RandomSecret();
  ASSERT_TRUE(secret.ok());
  EXPECT_TRUE(HoldsRunSecret("AUTH " + *secret));
  EXPECT_EQ(RedactRunSecrets("auth " + *secret + " failed; " + *secret),
            std::string("auth ") + kRedacted + " failed; " + kRedacted);
  EXPECT_EQ(RedactRunSecrets("nothing here"), "nothing here");
  EXPECT_FALSE(HoldsRunSecret(secret->substr(1)));
}

TEST(RunSecretsTest, ALongerSecretHoldingAShorterOneIsRedactedWhole) {
  AddRunSecret("hunter2hunter2");
  AddRunSecret("xx-hunter2hunter2-yy");
  EXPECT_EQ(RedactRunSecrets("pw=xx-hunter2hunter2-yy;"), std::string("pw=") + kRedacted + ";");
  EXPECT_EQ(RedactRunSecrets("pw=hunter2hunter2"), std::string("pw=") + kRedacted);
}

TEST(RunSecretsTest, ShortStringsAreNotTakenAsSecrets) {
  AddRunSecret("");
  AddRunSecret("abc");
  EXPECT_EQ(RedactRunSecrets("abc"), "abc");
  for (const auto& s : RunSecretList()) EXPECT_GE(s.size(), kMinRunSecretLength);
}

}  // namespace
}  // namespace locksmith
