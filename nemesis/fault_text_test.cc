#include "nemesis/fault_text.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

TEST(FaultTextTest, OffsetsWithTheirSignAndDurations) {
  EXPECT_EQ(FormatOffsetMs(60005.861), "+60 s");
  EXPECT_EQ(FormatOffsetMs(-250), "-250 ms");
  EXPECT_EQ(FormatOffsetMs(0.176), "+0.18 ms");
  EXPECT_EQ(DurationText(2408), "2.408 s");
  EXPECT_EQ(DurationText(0.85), "850 \xC2\xB5s");
}

TEST(FaultTextTest, NamesInNaturalOrderWithClientRanges) {
  EXPECT_TRUE(NaturalLess("n2", "n10"));
  EXPECT_FALSE(NaturalLess("n10", "n2"));
  EXPECT_EQ(CompactNames({"c3", "n1", "c0", "c1", "c2", "c5", "c6"}),
            "c0\xE2\x80\x93" "c3 c5 c6 n1");
}

TEST(FaultTextTest, FieldsReadLeniently) {
  const nlohmann::json value = {{"key", "lock-1"}, {"process", 4}, {"ms", "soon"}};
  EXPECT_EQ(StringField(value, "key"), "lock-1");
  EXPECT_EQ(StringField(value, "process"), "4");
  EXPECT_EQ(StringField(value, "none"), "");
  EXPECT_EQ(NumberField(value, "ms"), nullptr);
  EXPECT_EQ(ClientHitText(value), " p4 holding lock-1");
  EXPECT_EQ(ShortText("abc\xC2\xB5", 4), "abc\xE2\x80\xA6");  // not half a character
}

}  // namespace
}  // namespace locksmith
