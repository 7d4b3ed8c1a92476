#include "history/op_stream.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace locksmith {
namespace {

class JsonlOpStreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/op-stream-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    path_ = std::string(dir) + "/history.jsonl";
  }
  void TearDown() override {
    unlink(path_.c_str());
    rmdir(path_.substr(0, path_.rfind('/')).c_str());
  }
  void Write(const std::string& text) { std::ofstream(path_) << text; }

  std::string path_;
};

const char kTwoOps[] =
    R"({"index":0,"time":5,"process":0,"type":"invoke","f":"acquire","key":"k"})"
    "\n\n"
    R"({"index":1,"time":9,"process":0,"type":"ok","f":"acquire","key":"k"})"
    "\n";

TEST_F(JsonlOpStreamTest, ReadsEveryOpAndRewindsForASecondPass) {
  Write(kTwoOps);
  auto stream = JsonlOpStream::Open(path_);
  ASSERT_TRUE(stream) << stream.error();
  for (int pass = 0; pass < 2; ++pass) {
    auto history = ReadAll(**stream);
    ASSERT_TRUE(history) << history.error();
    ASSERT_EQ(history->size(), 2u);
    EXPECT_EQ((*history)[1].type, OpType::kOk);
    EXPECT_EQ((*history)[1].time, 9);
    ASSERT_TRUE((*stream)->Rewind());
  }
}

TEST_F(JsonlOpStreamTest, ALastLineCutShortIsSkippedAndSaid) {
  Write(std::string(kTwoOps) + R"({"index":2,"time":1)");
  auto stream = JsonlOpStream::Open(path_);
  ASSERT_TRUE(stream);
  auto history = ReadAll(**stream);
  ASSERT_TRUE(history) << history.error();
  EXPECT_EQ(history->size(), 2u);
  ASSERT_EQ((*stream)->skipped().size(), 1u);
  EXPECT_EQ((*stream)->skipped()[0].line, 4);
}

TEST_F(JsonlOpStreamTest, AMalformedLineInsideIsAnErrorNamingIt) {
  Write(std::string("not json\n") + kTwoOps);
  auto stream = JsonlOpStream::Open(path_);
  ASSERT_TRUE(stream);
  Op op;
  auto next = (*stream)->Next(&op);
  ASSERT_FALSE(next);
  EXPECT_EQ(next.error().rfind(path_ + ":1: ", 0), 0u) << next.error();
}

TEST_F(JsonlOpStreamTest, ReadsTheSameOpsAsTheWholeFileReader) {
  std::string text;
  for (int i = 0; i < 5000; ++i) {
    text += R"({"index":)" + std::to_string(i) + R"(,"time":)" + std::to_string(i * 10) +
            R"(,"process":3,"type":"invoke","f":"acquire","key":")" + std::string(40, 'k') +
            "\"}\n";
  }
  Write(text);
  auto whole = ReadHistoryJsonl(path_);
  auto stream = JsonlOpStream::Open(path_);
  ASSERT_TRUE(whole && stream);
  auto streamed = ReadAll(**stream);
  ASSERT_TRUE(streamed);
  ASSERT_EQ(streamed->size(), whole->size());
  for (size_t i = 0; i < whole->size(); ++i) EXPECT_EQ(OpToJsonLine((*streamed)[i]), OpToJsonLine((*whole)[i]));
}

TEST_F(JsonlOpStreamTest, AFifoIsRefusedWithoutWaitingForAWriter) {
  ASSERT_EQ(mkfifo(path_.c_str(), 0600), 0);
  auto stream = JsonlOpStream::Open(path_);
  ASSERT_FALSE(stream);
  EXPECT_NE(stream.error().find("not a regular file"), std::string::npos);
}

TEST(OpStreamTest, AHistoryInMemoryStreamsAndRewinds) {
  History h(3);
  h[2].f = "release";
  HistoryOpStream stream(h);
  Op op;
  int n = 0;
  while (*stream.Next(&op)) ++n;
  EXPECT_EQ(n, 3);
  EXPECT_EQ(op.f, "release");
  ASSERT_TRUE(stream.Rewind());
  ASSERT_TRUE(*stream.Next(&op));
  EXPECT_EQ(op.f, "");
}

}  // namespace
}  // namespace locksmith
