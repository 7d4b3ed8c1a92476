// trend.html in a real browser (headless Chromium, Debian's chromium): five
// stored nights of suite "nightly" (summaries written by the suite writer,
// their run directories beside them) drawn by `locksmith trend OUT STORE`;
// a script in the page counts, in the DOM Chromium built, the rows, the rows
// marked regressed and the nights each row links to, and whether every link
// leads to a file. Pruned to the newest two nights, the page is drawn again
// and must be the same. A screenshot is kept in artifacts/. No servers.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "base/testing/file_text.h"
#include "base/testing/headless_chromium.h"
#include "base/testing/temp_dir.h"
#include "harness/store_prune.h"
#include "harness/trend_command.h"
#include "reports/testing/suite_nights.h"

namespace locksmith {
namespace {

namespace fs = std::filesystem;

// Run in the page: rows, rows regressed (and which), and per row how many
// distinct nights its points link to.
constexpr const char* kPageCheck = R"JS(<script>
(function () {
  const rows = document.querySelectorAll('tr.cell');
  const regressed = Array.from(document.querySelectorAll('tr.cell.regressed'))
      .map(r => r.dataset.cell + ' ' + (r.querySelector('.badge') || {}).textContent);
  const linked = Array.from(rows).map(r => new Set(Array.from(r.querySelectorAll('a'))
      .map(a => a.getAttribute('href'))).size);
  const rings = document.querySelectorAll('circle.reg').length;
  const out = document.createElement('pre');
  out.id = 'trend-check';
  out.textContent = 'rows=' + rows.length + ';regressed=' + regressed.join(',') +
      ';linked=' + linked.join(',') + ';rings=' + rings + ';header=' +
      document.querySelector('header .verdict').textContent;
  document.body.appendChild(out);
})();
</script>)JS";

void MakeRun(const fs::path& dir) {
  fs::create_directories(dir);
  std::ofstream(dir / "config.json") << "{}";
  std::ofstream(dir / "results.json") << R"({"valid":true})";
  std::ofstream(dir / "history.bin") << std::string(8192, 'h');
  std::ofstream(dir / "report.html") << "<html></html>";
}

// Five nights in a store, as `locksmith suite` leaves them.
void MakeStore(const fs::path& root) {
  int n = 0;
  for (const SuiteRecord& record : testing::FiveNights()) {
    const fs::path dir =
        root / "suites" / "nightly" / ("2026030" + std::to_string(++n) + "T020000.000Z");
    fs::create_directories(dir);
    ASSERT_TRUE(WriteSuiteReports(record, dir.string()).ok());
    for (const SuiteRun& run : record.runs) MakeRun(dir / run.dir);
  }
}

// The page written by `trend`, with the check appended, loaded in Chromium:
// what the check found (and a screenshot when asked).
std::string CheckInChromium(const std::string& store, const std::string& work,
                            const std::string& screenshot = "") {
  std::ostringstream out, err;
  EXPECT_EQ(WriteTrend(store + "/trend", {store}, out, err), 0) << err.str();
  const std::string page = store + "/trend/trend.html";
  std::string html = testing::FileText(page);
  // Every link leads to a file.
  const std::regex href("href=\"([^\"]+)\"");
  for (std::sregex_iterator it(html.begin(), html.end(), href), end; it != end; ++it) {
    EXPECT_TRUE(fs::exists(fs::path(store) / "trend" / (*it)[1].str())) << (*it)[1].str();
  }
  const std::string checked = store + "/trend/checked.html";
  std::ofstream(checked) << html.insert(html.rfind("</body>"), kPageCheck);
  std::string dom, log;
  EXPECT_TRUE(testing::DumpDomInChromium(checked, work, &dom, &log)) << log;
  if (!screenshot.empty()) {
    EXPECT_TRUE(testing::ScreenshotInChromium(page, work, screenshot) && fs::exists(screenshot));
  }
  std::smatch m;
  const std::regex found("<pre id=\"trend-check\">([^<]*)</pre>");
  return std::regex_search(dom, m, found) ? m[1].str() : "no trend-check in the DOM";
}

TEST(TrendPageTest, FiveNightsMarkTheRegressedCellAndSurvivePruning) {
  testing::TempDir store, work;
  MakeStore(store.path());
  fs::create_directories("artifacts");
  const std::string shot = fs::absolute("artifacts/trend-five-nights.png").string();
  const std::string expected =
      "rows=4;regressed=replica-failover regressed;linked=5,5,5,5;rings=1;header=REGRESSED";
  EXPECT_EQ(CheckInChromium(store.path(), work.path(), shot), expected);

  std::ostringstream out, err;
  ASSERT_EQ(PruneStoreCommand(store.path(), {2, std::nullopt}, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("3 directories pruned"), std::string::npos) << out.str();
  EXPECT_FALSE(fs::exists(store.path() + "/suites/nightly/20260301T020000.000Z/kill-clean"));
  EXPECT_EQ(CheckInChromium(store.path(), work.path()), expected);
}

TEST(TrendPageTest, IdenticalNightsMarkNothing) {
  testing::TempDir store, work;
  const SuiteRecord night = testing::FiveNights()[0];
  for (int n = 1; n <= 5; ++n) {
    const fs::path dir = fs::path(store.path()) / "suites" / "nightly" /
                         ("2026030" + std::to_string(n) + "T020000.000Z");
    fs::create_directories(dir);
    ASSERT_TRUE(WriteSuiteReports(night, dir.string()).ok());
  }
  EXPECT_EQ(CheckInChromium(store.path(), work.path()),
            "rows=4;regressed=;linked=5,5,5,5;rings=0;header=NO REGRESSION");
}

}  // namespace
}  // namespace locksmith
