// TrendPage: the rows, the marks and the links of trend.html, on five
// nights made by the summary writer.
#include "reports/trend_html.h"

#include <gtest/gtest.h>

#include <regex>

#include "reports/testing/suite_nights.h"

namespace locksmith {
namespace {

TrendSection FiveNightSection() {
  TrendSection section{"nightly", {}};
  int n = 0;
  for (SuiteRecord& record : testing::FiveNights()) {
    ++n;
    section.nights.push_back({"night " + std::to_string(n),
                              "../suites/nightly/night" + std::to_string(n) + "/index.html",
                              std::move(record)});
  }
  return section;
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(TrendHtmlTest, OneRowPerCellAndOnlyTheRegressedCellMarked) {
  const std::string page = RenderTrendPage({FiveNightSection()});
  EXPECT_EQ(Count(page, "<tr class=\"cell"), 4u);
  EXPECT_EQ(Count(page, "<tr class=\"cell regressed\""), 1u);
  EXPECT_NE(page.find("<tr class=\"cell regressed\" data-cell=\"replica-failover\""),
            std::string::npos);
  EXPECT_EQ(Count(page, "<circle class=\"reg\""), 1u);  // night 5 of that cell only
  EXPECT_NE(page.find("<div class=\"verdict\">REGRESSED</div>"), std::string::npos);
}

TEST(TrendHtmlTest, EveryNightLinksToItsPageOnTheAxisAndEachPoint) {
  const std::string page = RenderTrendPage({FiveNightSection()});
  for (int n = 1; n <= 5; ++n) {
    // the axis' tick, and the violation point of each of the four cells
    EXPECT_EQ(Count(page, "href=\"../suites/nightly/night" + std::to_string(n) + "/index.html\""),
              5u);
  }
  // Newest on the right: night 5's tick is the rightmost.
  const std::regex tick("<line class=\"tick\" x1=\"([0-9.]+)\"[^>]*><title>night ([0-9])<");
  double last_x = -1;
  int last_night = 0;
  for (std::sregex_iterator it(page.begin(), page.end(), tick), end; it != end; ++it) {
    EXPECT_GT(std::stod((*it)[1]), last_x);
    last_x = std::stod((*it)[1]);
    last_night = std::stoi((*it)[2]);
  }
  EXPECT_EQ(last_night, 5);
}

TEST(TrendHtmlTest, IdenticalNightsMarkNothing) {
  TrendSection section = FiveNightSection();
  for (auto& night : section.nights) night.record = section.nights[0].record;
  const std::string page = RenderTrendPage({section});
  EXPECT_EQ(Count(page, "regressed\""), 0u);
  EXPECT_EQ(Count(page, "<circle class=\"reg\""), 0u);
  EXPECT_NE(page.find("NO REGRESSION"), std::string::npos);
}

TEST(TrendHtmlTest, ACellNameIsEscaped) {
  TrendSection section{"s<x>", {}};
  section.nights.push_back({"<n>", "", testing::NightRecord("s<x>", {{"<b>cell"}})});
  const std::string page = RenderTrendPage({section});
  EXPECT_EQ(page.find("<b>cell"), std::string::npos);
  EXPECT_NE(page.find("&lt;b&gt;cell"), std::string::npos);
  EXPECT_EQ(page.find("<n>"), std::string::npos);
}

}  // namespace
}  // namespace locksmith
