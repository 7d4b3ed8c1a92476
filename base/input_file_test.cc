#include "base/input_file.h"

#include <sys/stat.h>

#include <fstream>

#include <gtest/gtest.h>

#include "base/testing/temp_dir.h"

namespace locksmith {
namespace {

TEST(ReadInputFileTest, ReadsARegularFileWhole) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/history.jsonl";
  std::ofstream(path) << "one\ntwo\n";
  auto text = ReadInputFile(path, 100);
  ASSERT_TRUE(text.ok()) << text.error();
  EXPECT_EQ(*text, "one\ntwo\n");
}

TEST(ReadInputFileTest, AFifoADeviceAndADirectoryAreRefusedAtOnce) {
  testing::TempDir dir;
  // A FIFO with no writer: an ordinary open would block forever.
  const std::string fifo = dir.path() + "/history.jsonl";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& path : {fifo, std::string("/dev/zero"), dir.path()}) {
    auto text = ReadInputFile(path, uint64_t{1} << 30);
    ASSERT_FALSE(text.ok()) << path;
    EXPECT_EQ(text.error(), path + " is not a regular file (a FIFO, device or directory cannot "
                                   "be read as one; save it to a file)");
  }
}

TEST(ReadInputFileTest, TheLimitIsExact) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/results.json";
  std::ofstream(path) << std::string(2048, 'x');
  EXPECT_TRUE(ReadInputFile(path, 2048).ok());
  auto text = ReadInputFile(path, 2047);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error(), path + " is 2048 bytes; at most 2047 bytes are allowed");
}

TEST(ReadInputFileTest, AMissingFileSaysWhy) {
  auto text = ReadInputFile("/nonexistent/history.jsonl", 10);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error(), "cannot read /nonexistent/history.jsonl: No such file or directory");
}

TEST(IsPathBelowTest, OnlyRelativePathsThatStayInside) {
  for (const char* below : {"redis.kill/20261124T035720.389Z", "a", "./a", "a/./b", "a//b",
                            "javascript:alert(1)", "..a/b..", "a/..."}) {
    EXPECT_TRUE(IsPathBelow(below)) << below;
  }
  for (const char* outside : {"", "/etc", "//evil.example/x", "..", "../x", "a/../../x", "a/..",
                              ".", "./", "./."}) {
    EXPECT_FALSE(IsPathBelow(outside)) << outside;
  }
  EXPECT_FALSE(IsPathBelow(std::string_view("a\0b", 3)));
}

TEST(ByteSizeTextTest, BigSizesAlsoSayTheirUnit) {
  EXPECT_EQ(ByteSizeText(512), "512 bytes");
  EXPECT_EQ(ByteSizeText(uint64_t{1} << 20), "1048576 bytes (1 MiB)");
  EXPECT_EQ(ByteSizeText(uint64_t{3} << 29), "1610612736 bytes (1.5 GiB)");
}

}  // namespace
}  // namespace locksmith
