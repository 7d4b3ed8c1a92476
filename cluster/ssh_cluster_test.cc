// The ssh provider's control directory (MakeSshControlDir) against names
// planted in /tmp before it runs: the old predictable name
// (/tmp/lsm-ssh-<tag>-<pid>, no random part) and the mkdtemp pattern's own
// prefix and template, as a directory of someone else's choosing and as a
// link to a directory they want us to write into. None is used, followed or
// removed; the directory made is new, ours and 0700. No ssh and no node.
#include "cluster/ssh_cluster.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/testing/temp_dir.h"

namespace locksmith {
namespace {

namespace fs = std::filesystem;

// The tag `locksmith cleanup --provider ssh` makes its directory with, whose
// old name /tmp/lsm-ssh-clean0-<pid> was reused when it existed.
constexpr char kTag[] = "clean0";

class SshControlDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const std::string& path : Planted()) fs::remove_all(path);
    // The old name as a directory of another's, with something in it.
    fs::create_directory(old_name_);
    std::ofstream(old_name_ + "/keep") << "planted";
    // The mkdtemp template's prefix as a directory, the template itself as a
    // link to a directory the attacker wants the sockets in.
    fs::create_directory(prefix_);
    fs::create_directory_symlink(victim_.path(), template_);
  }
  void TearDown() override {
    for (const std::string& path : Planted()) fs::remove_all(path);
  }
  std::vector<std::string> Planted() const { return {old_name_, prefix_, template_}; }

  // The planted names are as they were, and nothing was made through the link.
  void ExpectPlantedUntouched() const {
    std::ifstream kept(old_name_ + "/keep");
    std::string text;
    kept >> text;
    EXPECT_EQ(text, "planted");
    EXPECT_TRUE(fs::is_directory(fs::symlink_status(prefix_)));
    EXPECT_TRUE(fs::is_empty(prefix_));
    EXPECT_TRUE(fs::is_symlink(fs::symlink_status(template_)));
    EXPECT_EQ(fs::read_symlink(template_), fs::path(victim_.path()));
    EXPECT_TRUE(fs::is_empty(victim_.path()));
  }

  const std::string old_name_ =
      "/tmp/lsm-ssh-" + std::string(kTag) + "-" + std::to_string(getpid());
  const std::string prefix_ = old_name_ + "-";
  const std::string template_ = prefix_ + "XXXXXX";
  testing::TempDir victim_{"lsm-ssh-victim"};
};

// lstat: the directory itself, not what a link at its name points to.
void ExpectNewPrivateDirectory(const std::string& dir) {
  struct stat st{};
  ASSERT_EQ(lstat(dir.c_str(), &st), 0) << dir;
  EXPECT_TRUE(S_ISDIR(st.st_mode)) << dir;
  EXPECT_EQ(st.st_uid, geteuid());
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  EXPECT_TRUE(fs::is_empty(dir));
}

TEST_F(SshControlDirTest, PlantedNamesAreNeitherUsedNorFollowedNorRemoved) {
  auto made = MakeSshControlDir(kTag);
  ASSERT_TRUE(made.ok()) << made.error();
  EXPECT_TRUE(made->starts_with(prefix_)) << *made;
  EXPECT_EQ(made->size(), template_.size()) << *made;
  for (const std::string& planted : Planted()) EXPECT_NE(*made, planted);
  EXPECT_EQ(fs::canonical(*made).parent_path(), fs::path("/tmp"));
  ExpectNewPrivateDirectory(*made);
  ExpectPlantedUntouched();
  fs::remove(*made);
}

TEST_F(SshControlDirTest, EachCallMakesANewDirectoryEvenUnderAPermissiveUmask) {
  const mode_t umask_before = umask(0);
  auto first = MakeSshControlDir(kTag);
  auto second = MakeSshControlDir(kTag);
  umask(umask_before);
  ASSERT_TRUE(first.ok()) << first.error();
  ASSERT_TRUE(second.ok()) << second.error();
  EXPECT_NE(*first, *second);
  ExpectNewPrivateDirectory(*first);
  ExpectNewPrivateDirectory(*second);
  ExpectPlantedUntouched();
  fs::remove(*first);
  fs::remove(*second);
}

}  // namespace
}  // namespace locksmith
