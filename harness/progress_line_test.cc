// ProgressLine: the status line's text, and its cut to a terminal's width.
#include "harness/progress_line.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

ProgressLine Sample() {
  ProgressLine line;
  line.label = "run 3/12 redis.kill";
  line.elapsed_s = 12.46;
  line.limit_s = 30;
  line.ops_per_s = 1520.4;
  line.counts.ok = 10234;
  line.counts.fail = 523;
  line.counts.info = 2;
  line.counts.faults = {"kill", "partition"};
  line.counts.double_holders = 1;
  return line;
}

TEST(ProgressLineTest, ShowsEveryFigureOnOneLine) {
  EXPECT_EQ(Sample().Format(),
            "run 3/12 redis.kill | 12.5/30 s | 1520 ops/s | ok 10234 fail 523 info 2 | "
            "faults: kill,partition | double holders: 1");
}

TEST(ProgressLineTest, ALoneRunHasNoLabelAndNoFaultsSaysNone) {
  ProgressLine line;
  line.elapsed_s = 0.04;
  line.limit_s = 2.5;
  EXPECT_EQ(line.Format(),
            "0.0/2.5 s | 0 ops/s | ok 0 fail 0 info 0 | faults: none | double holders: 0");
}

TEST(ProgressLineTest, ControlCharactersInTheLabelAndFaultsAreEscaped) {
  ProgressLine line = Sample();
  line.label = "run 1/2 a\rverdict: VALID\x1b[K";
  line.counts.faults = {"kill\n"};
  const std::string text = line.Format();
  EXPECT_EQ(text.rfind("run 1/2 a\\rverdict: VALID\\x1b[K | ", 0), 0u) << text;
  EXPECT_NE(text.find("faults: kill\\n |"), std::string::npos) << text;
  EXPECT_EQ(text.find_first_of("\r\n\x1b"), std::string::npos) << text;
}

TEST(ProgressLineTest, IsCutToTheTerminalsWidth) {
  const std::string cut = Sample().Format(20);
  EXPECT_EQ(cut, "run 3/12 redis.kill\xE2\x80\xA6");  // 19 columns and the ellipsis
  EXPECT_EQ(Sample().Format(1000), Sample().Format());
  ProgressLine wide = Sample();
  wide.label = "\xC3\xA9\xC3\xA9\xC3\xA9";  // three columns, six bytes
  EXPECT_EQ(wide.Format(4), "\xC3\xA9\xC3\xA9\xC3\xA9\xE2\x80\xA6");
}

}  // namespace
}  // namespace locksmith
