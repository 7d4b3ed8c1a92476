#include "backends/redis_protocol.h"

#include <array>
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <hiredis/hiredis.h>

namespace locksmith {
namespace {

std::string HiredisFormat(const std::vector<std::string_view>& args) {
  std::vector<const char*> argv;
  std::vector<size_t> lens;
  for (auto a : args) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  char* cmd = nullptr;
  int n = redisFormatCommandArgv(&cmd, static_cast<int>(args.size()), argv.data(), lens.data());
  std::string out(cmd, static_cast<size_t>(n));
  redisFreeCommand(cmd);
  return out;
}

TEST(AppendRedisCommandTest, MatchesHiredisByteForByte) {
  const std::string long_arg(70000, 'x');
  const std::string binary("a\r\nb\0c", 6);
  const std::vector<std::vector<std::string_view>> cases = {
      {"PING"},
      {"SET", "lock-0", "0123456789abcdef0123456789abcdef", "NX", "PX", "30000"},
      {"EVALSHA", "b70c2384248f88e6b75b9f89241a180f856ad852", "1", "k", ""},
      {"SET", binary, long_arg},
  };
  for (const auto& args : cases) {
    std::string out;
    AppendRedisCommand(out, args);
    EXPECT_EQ(out, HiredisFormat(args));
  }
}

TEST(AppendRedisCommandTest, AppendsToExistingBuffer) {
  std::string out = "prefix";
  const std::array<std::string_view, 1> ping{"PING"};
  AppendRedisCommand(out, ping);
  AppendRedisCommand(out, ping);
  EXPECT_EQ(out, "prefix*1\r\n$4\r\nPING\r\n*1\r\n$4\r\nPING\r\n");
}

TEST(RedisReplyParserTest, ParsesEveryScalarType) {
  RedisReplyParser p;
  const std::string wire = "+OK\r\n-ERR boom\r\n:42\r\n$-1\r\n$5\r\nhe\r\no\r\n:-7\r\n";
  ASSERT_TRUE(p.Feed(wire.data(), wire.size()));
  RedisReply r;
  ASSERT_EQ(p.Next(r), RedisReplyParser::State::kReply);
  EXPECT_TRUE(r.IsStatus("OK"));
  ASSERT_EQ(p.Next(r), RedisReplyParser::State::kReply);
  EXPECT_EQ(r.type, RedisReply::Type::kError);
  EXPECT_EQ(r.str, "ERR boom");
  ASSERT_EQ(p.Next(r), RedisReplyParser::State::kReply);
  EXPECT_EQ(r.type, RedisReply::Type::kInteger);
  EXPECT_EQ(r.integer, 42);
  ASSERT_EQ(p.Next(r), RedisReplyParser::State::kReply);
  EXPECT_EQ(r.type, RedisReply::Type::kNil);
  ASSERT_EQ(p.Next(r), RedisReplyParser::State::kReply);
  EXPECT_EQ(r.type, RedisReply::Type::kString);
  EXPECT_EQ(r.str, "he\r\no");
  ASSERT_EQ(p.Next(r), RedisReplyParser::State::kReply);
  EXPECT_EQ(r.integer, -7);
  EXPECT_EQ(p.Next(r), RedisReplyParser::State::kNeedMore);
}

TEST(RedisReplyParserTest, ParsesNestedArraysFedOneByteAtATime) {
  const std::string wire = "*3\r\n:1\r\n*2\r\n$1\r\na\r\n$-1\r\n+x\r\n*0\r\n*-1\r\n";
  RedisReplyParser p;
  std::vector<RedisReply> got;
  RedisReply r;
  for (char c : wire) {
    ASSERT_TRUE(p.Feed(&c, 1));
    while (p.Next(r) == RedisReplyParser::State::kReply) got.push_back(r);
  }
  ASSERT_EQ(got.size(), 3u);
  ASSERT_EQ(got[0].type, RedisReply::Type::kArray);
  ASSERT_EQ(got[0].elements.size(), 3u);
  EXPECT_EQ(got[0].elements[0].integer, 1);
  ASSERT_EQ(got[0].elements[1].elements.size(), 2u);
  EXPECT_EQ(got[0].elements[1].elements[0].str, "a");
  EXPECT_EQ(got[0].elements[1].elements[1].type, RedisReply::Type::kNil);
  EXPECT_TRUE(got[0].elements[2].IsStatus("x"));
  EXPECT_EQ(got[1].type, RedisReply::Type::kArray);
  EXPECT_TRUE(got[1].elements.empty());
  EXPECT_EQ(got[2].type, RedisReply::Type::kNil);
}

TEST(RedisReplyParserTest, ReportsProtocolErrors) {
  RedisReplyParser p;
  p.Feed("?what\r\n", 7);
  RedisReply r;
  EXPECT_EQ(p.Next(r), RedisReplyParser::State::kError);
  EXPECT_NE(p.error(), "no error");
}

TEST(RedisReplyParserTest, ResetDropsAPartialReply) {
  RedisReplyParser p;
  p.Feed("*2\r\n:1\r\n", 8);
  RedisReply r;
  EXPECT_EQ(p.Next(r), RedisReplyParser::State::kNeedMore);
  p.Reset();
  p.Feed(":5\r\n", 4);
  ASSERT_EQ(p.Next(r), RedisReplyParser::State::kReply);
  EXPECT_EQ(r.type, RedisReply::Type::kInteger);
  EXPECT_EQ(r.integer, 5);
}

TEST(RedisReplyTest, IsErrorMatchesTheWholeFirstWord) {
  RedisReply r;
  r.type = RedisReply::Type::kError;
  r.str = "BUSYKEY Target key name already exists.";
  EXPECT_FALSE(r.IsError("BUSY"));
  EXPECT_TRUE(r.IsError("BUSYKEY"));
  r.str = "NOSCRIPT No matching script. Please use EVAL.";
  EXPECT_TRUE(r.IsError("NOSCRIPT"));
  r.str = "LOADING";
  EXPECT_TRUE(r.IsError("LOADING"));
  r.type = RedisReply::Type::kStatus;
  EXPECT_FALSE(r.IsError("LOADING"));
}

}  // namespace
}  // namespace locksmith
