#include "reports/stats_html.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

TEST(StatsHtmlTest, UnitsFromTheNamesSuffix) {
  EXPECT_EQ(FormatStat("p50_ms", 1.5), "1.5 ms");
  EXPECT_EQ(FormatStat("gap_ns", 850), "850 ns");
  EXPECT_EQ(FormatStat("first_violation_s", 2), "2.000 s");
  EXPECT_EQ(FormatStat("peak_memory_bytes", 3 << 20), "3.0 MiB");
  EXPECT_EQ(FormatStat("availability", 0.25), "25.0%");
  EXPECT_EQ(FormatStat("holds", 1234567), "1,234,567");
  EXPECT_EQ(FormatStat("ok", true), "yes");
  EXPECT_EQ(FormatStat("why", "<b>"), "&lt;b&gt;");
}

TEST(StatsHtmlTest, ObjectsOfObjectsAreOneTable) {
  const nlohmann::json per_key = {{"lock-0", {{"holds", 3}, {"p50_ms", 1}}},
                                  {"lock-1", {{"holds", 4}}}};
  const std::string html = RenderStats(per_key, "by_key", 0);
  EXPECT_EQ(html.rfind("<table class=\"grid stats\"><tr><th>by key</th><th>holds</th>"
                       "<th>p50 ms</th></tr>",
                       0),
            0u);
  EXPECT_NE(html.find("<td>lock-1</td><td class=\"n\">4</td><td class=\"n\"></td>"),
            std::string::npos);
}

}  // namespace
}  // namespace locksmith
