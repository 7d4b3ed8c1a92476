// `locksmith export -o OUT` never writes through a link: not one planted at
// the temporary name it used to use (OUT.tmp-<pid>), and not one at OUT
// itself, which is refused with one line.
#include "harness/export_command.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/testing/file_text.h"
#include "base/testing/temp_dir.h"

namespace locksmith {
namespace {

namespace fs = std::filesystem;

class ExportCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(history_)
        << R"({"index": 0, "time": 1000, "process": 0, "type": "invoke", "f": "acquire", "key": "k"})"
        << "\n"
        << R"({"index": 1, "time": 2000, "process": 0, "type": "ok", "f": "acquire", "key": "k"})"
        << "\n";
    std::ofstream(victim_) << "private\n";
  }
  int Export(const std::string& output) {
    out_.str("");
    err_.str("");
    return ExportHistory({.input = history_, .output = output}, out_, err_);
  }

  testing::TempDir dir_;
  const std::string history_ = dir_.path() + "/history.jsonl";
  const std::string victim_ = dir_.path() + "/victim";
  std::ostringstream out_, err_;
};

TEST_F(ExportCommandTest, ALinkAtTheOldTemporaryNameIsNotFollowed) {
  const std::string output = dir_.path() + "/out.jsonl";
  fs::create_symlink(victim_, output + ".tmp-" + std::to_string(getpid()));
  ASSERT_EQ(Export(output), 0) << err_.str();
  EXPECT_EQ(testing::FileText(victim_), "private\n");
  const std::string written = testing::FileText(output);
  EXPECT_EQ(std::count(written.begin(), written.end(), '\n'), 2) << written;
  EXPECT_FALSE(fs::is_symlink(output));
}

TEST_F(ExportCommandTest, ALinkAtTheOutputIsRefusedWithOneLine) {
  const std::string output = dir_.path() + "/out.jsonl";
  fs::create_symlink(victim_, output);
  EXPECT_EQ(Export(output), 254);
  const std::string err = err_.str();
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_NE(err.find(output + " is a symbolic link"), std::string::npos) << err;
  EXPECT_EQ(testing::FileText(victim_), "private\n");
  EXPECT_TRUE(fs::is_symlink(output));
  // Nothing else was left beside it.
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_.path())) ++entries;
  EXPECT_EQ(entries, 3);
}

}  // namespace
}  // namespace locksmith
