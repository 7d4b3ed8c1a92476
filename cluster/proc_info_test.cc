#include "cluster/proc_info.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace locksmith {
namespace {

TEST(ProcInfoTest, ParsesStartTimeAfterTheLastParenthesis) {
  // A command name with spaces and ") (" must not shift the fields.
  std::string line =
      "4242 (evil) (name 1) S 1 4242 4242 0 -1 4194560 100 0 0 0 3 4 0 0 20 0 1 0 987654 "
      "1000000 200 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 1 0 0 0 0 0";
  auto st = ParseProcStat(line);
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(st->state, 'S');
  EXPECT_EQ(st->pgrp, 4242);
  EXPECT_EQ(st->start_time, 987654u);
}

TEST(ProcInfoTest, RejectsTruncatedOrGarbledLines) {
  EXPECT_FALSE(ParseProcStat("").has_value());
  EXPECT_FALSE(ParseProcStat("12 (x) S 1 2 3").has_value());
  EXPECT_FALSE(ParseProcStat("12 x S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20").has_value());
  EXPECT_FALSE(
      ParseProcStat("12 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 abc 20").has_value());
}

TEST(ProcInfoTest, ReadsThisProcess) {
  auto st = ReadProcStat(getpid());
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(st->state, 'R');
  EXPECT_TRUE(IsSameProcessAlive(getpid(), st->start_time));
  EXPECT_FALSE(IsSameProcessAlive(getpid(), st->start_time + 1));  // a pid reuse
  EXPECT_FALSE(ReadProcStat(-1).has_value());
}

TEST(ProcInfoTest, FindsThisProcessInItsOwnNamespace) {
  auto id = NetnsIdOf("/proc/self/ns/net");
  ASSERT_TRUE(id.ok()) << id.error();
  auto pids = PidsInNetns(*id);
  EXPECT_NE(std::find(pids.begin(), pids.end(), getpid()), pids.end());
  EXPECT_FALSE(NetnsIdOf("/nonexistent/ns").ok());
}

}  // namespace
}  // namespace locksmith
