#include "harness/secret_redaction.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/testing/temp_dir.h"

namespace locksmith {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void Write(const std::string& path, const std::string& content) {
  std::ofstream(path, std::ios::binary) << content;
}

TEST(RedactSecretsTest, EveryOccurrenceInEveryNodeFileIsRedacted) {
  TempDir dir;
  fs::create_directories(dir.path() + "/n1/data");
  Write(dir.path() + "/n1/redis.conf", "port 6379\nrequirepass \"ls-s3cret\"\n");
  Write(dir.path() + "/n1/sentinel.conf",
        "sentinel auth-pass m ls-s3cret\nmasterauth ls-s3cret\nuser x on >ls-other\n");
  // A secret split across the chunks the search reads.
  const std::string big = std::string((1 << 16) - 4, 'a') + "ls-s3cret" + "\n";
  Write(dir.path() + "/n1/data/appendonly.aof", big);
  Write(dir.path() + "/n1/redis.log", "Ready to accept connections\n");
  fs::permissions(dir.path() + "/n1/redis.log", fs::perms::owner_read | fs::perms::group_read |
                                                    fs::perms::others_read,
                  fs::perm_options::replace);
  fs::permissions(dir.path() + "/n1/redis.conf", fs::perms::owner_read | fs::perms::owner_write |
                                                     fs::perms::group_read | fs::perms::others_read,
                  fs::perm_options::replace);
  fs::permissions(dir.path() + "/n1/sentinel.conf",
                  fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace);
  const auto log_before = fs::last_write_time(dir.path() + "/n1/redis.log");
  ASSERT_TRUE(RedactSecrets(dir.path(), {"ls-s3cret", "ls-other", ""}));
  EXPECT_EQ(ReadAll(dir.path() + "/n1/redis.conf"), "port 6379\nrequirepass \"[redacted]\"\n");
  EXPECT_EQ(ReadAll(dir.path() + "/n1/sentinel.conf"),
            "sentinel auth-pass m [redacted]\nmasterauth [redacted]\nuser x on >[redacted]\n");
  EXPECT_EQ(ReadAll(dir.path() + "/n1/data/appendonly.aof"),
            std::string((1 << 16) - 4, 'a') + "[redacted]\n");
  // A file without a secret is left as it was.
  EXPECT_EQ(fs::last_write_time(dir.path() + "/n1/redis.log"), log_before);
  EXPECT_EQ(ReadAll(dir.path() + "/n1/redis.log"), "Ready to accept connections\n");
  // As readable as it was.
  struct stat st {};
  ASSERT_EQ(stat((dir.path() + "/n1/redis.conf").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  ASSERT_EQ(stat((dir.path() + "/n1/sentinel.conf").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(RedactSecretsTest, NeverFollowsALinkOutOfTheDirectory) {
  TempDir dir, outside;
  Write(outside.path() + "/victim", "ls-s3cret");
  fs::create_directory(dir.path() + "/n1");
  fs::create_symlink(outside.path() + "/victim", dir.path() + "/n1/redis.conf");
  fs::create_directory_symlink(outside.path(), dir.path() + "/n1/data");
  ASSERT_TRUE(RedactSecrets(dir.path(), {"ls-s3cret"}));
  EXPECT_EQ(ReadAll(outside.path() + "/victim"), "ls-s3cret");
  EXPECT_TRUE(fs::is_symlink(dir.path() + "/n1/redis.conf"));
}

TEST(RedactSecretsTest, AMissingDirectoryOrNoSecretIsNothingToDo) {
  EXPECT_TRUE(RedactSecrets("/nonexistent/nodes", {"x"}));
  TempDir dir;
  Write(dir.path() + "/f", "x");
  EXPECT_TRUE(RedactSecrets(dir.path(), {}));
  EXPECT_EQ(ReadAll(dir.path() + "/f"), "x");
}

TEST(RedactSecretsTest, SkipsTheFilesAndFoldersItIsTold) {
  TempDir dir;
  fs::create_directories(dir.path() + "/nodes/n1");
  fs::create_directories(dir.path() + "/clients");
  Write(dir.path() + "/history.bin", "ls-s3cret");
  Write(dir.path() + "/nodes/n1/redis.conf", "ls-s3cret");
  Write(dir.path() + "/clients/client-0.log", "pw ls-s3cret");
  ASSERT_TRUE(RedactSecrets(dir.path(), {"ls-s3cret"}, {"history.bin", "nodes"}));
  EXPECT_EQ(ReadAll(dir.path() + "/history.bin"), "ls-s3cret");
  EXPECT_EQ(ReadAll(dir.path() + "/nodes/n1/redis.conf"), "ls-s3cret");
  EXPECT_EQ(ReadAll(dir.path() + "/clients/client-0.log"), "pw [redacted]");
}

TEST(RedactedOpTest, AnOpQuotingARunSecretIsRedactedEverywhereAndOthersAreNotCopied) {
  const std::string secret = "op-secret-0123456789";
  AddRunSecret(secret);
  Op plain{.process = 1, .type = OpType::kFail, .f = "acquire", .key = "k", .error = "busy"};
  EXPECT_FALSE(RedactedOp(plain).has_value());
  Op leaky = plain;
  leaky.error = "denied: AUTH " + secret;
  leaky.value = {{"token", secret}, {"list", {1, "x" + secret}}};
  auto redacted = RedactedOp(leaky);
  ASSERT_TRUE(redacted.has_value());
  EXPECT_EQ(redacted->error, "denied: AUTH [redacted]");
  EXPECT_EQ(redacted->value["token"], "[redacted]");
  EXPECT_EQ(redacted->value["list"][1], "x[redacted]");
  EXPECT_EQ(redacted->value["list"][0], 1);
  EXPECT_EQ(redacted->f, "acquire");
  EXPECT_EQ(OpToJsonLine(*redacted).find(secret), std::string::npos);
}

}  // namespace
}  // namespace locksmith
