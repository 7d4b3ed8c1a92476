#include "base/atomic_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "base/testing/temp_dir.h"

namespace locksmith {
namespace {

namespace fs = std::filesystem;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(WriteFileAtomicallyTest, ReplacesTheFileAndLeavesNoTemporary) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/results.json";
  ASSERT_TRUE(WriteFileAtomically(path, "old\n"));
  ASSERT_TRUE(WriteFileAtomically(path, "new\n"));
  EXPECT_EQ(ReadAll(path), "new\n");
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1);
}

TEST(WriteFileAtomicallyTest, DoesNotFollowALinkPlantedAtTheOldTemporaryName) {
  testing::TempDir dir;
  const std::string victim = dir.path() + "/victim";
  { std::ofstream(victim) << "keep"; }
  const std::string path = dir.path() + "/index.html";
  fs::create_symlink(victim, path + ".tmp");
  ASSERT_TRUE(WriteFileAtomically(path, "page"));
  EXPECT_EQ(ReadAll(victim), "keep");
  EXPECT_EQ(ReadAll(path), "page");
}

TEST(WriteFileAtomicallyTest, PrivateFilesAreReadableOnlyByTheOwner) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/redis.conf";
  ASSERT_TRUE(WriteFileAtomically(path, "requirepass x\n", /*private_file=*/true));
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_TRUE(WriteFileAtomically(path + "2", "x"));
  ASSERT_EQ(::stat((path + "2").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

TEST(WriteFileAtomicallyTest, AMissingDirectoryIsAnErrorNamingTheFile) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/no/such/dir/summary.json";
  Status s = WriteFileAtomically(path, "{}");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().find(path), std::string::npos) << s.error();
}

TEST(AtomicFileWriterTest, WritesInPiecesAndOnlyACommitPutsTheFileInPlace) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/history.jsonl";
  {
    auto writer = AtomicFileWriter::Create(path);
    ASSERT_TRUE(writer.ok()) << writer.error();
    ASSERT_TRUE((*writer)->Write("abandoned\n"));
  }  // no Commit: nothing is left, not even the temporary
  EXPECT_TRUE(fs::is_empty(dir.path()));
  auto writer = AtomicFileWriter::Create(path);
  ASSERT_TRUE(writer.ok()) << writer.error();
  const std::string big(200000, 'x');  // past the buffer
  ASSERT_TRUE((*writer)->Write("a\n"));
  ASSERT_TRUE((*writer)->Write(big));
  ASSERT_TRUE((*writer)->Write("\nz\n"));
  EXPECT_FALSE(fs::exists(path));
  ASSERT_TRUE((*writer)->Commit());
  EXPECT_EQ(ReadAll(path), "a\n" + big + "\nz\n");
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1);
}

}  // namespace
}  // namespace locksmith
