// `locksmith debate --repeats 3`, shortened, end to end: a scripted scenario
// that predicts two holders (a Redis holder paused past its lease) and one
// that predicts none (Redis losing power with fsync always, at time scale
// 0.3), run as two shards in stores of their own as CI jobs would, merged
// with `locksmith merge`, and the matrix written again from the merged
// directory with `debate --from`. The merged debate.json holds every run of
// both shards; its page, loaded in headless Chromium, shows the debate's
// rows, a box per scenario whose agreement is debate.json's, the cells the
// harness cannot run, and a link to the report of every invalid run (each
// a file). The whole library at K = 3 would take half an hour (scripted
// scenarios keep their own timing): docs/debate.md says so.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "base/testing/headless_chromium.h"
#include "tests/locksmith_process.h"

namespace locksmith {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;

// Counted in the DOM Chromium built: rows, entries (and those agreeing),
// cannot-run cells, links to run reports, and the header's tally.
constexpr const char* kPageCheck = R"JS(<script>
(function () {
  const count = s => document.querySelectorAll(s).length;
  const reports = Array.from(document.querySelectorAll('ul.invalid-runs a'))
      .filter(a => /\/report\.html$/.test(a.getAttribute('href'))).length;
  const out = document.createElement('pre');
  out.id = 'debate-check';
  out.textContent = 'rows=' + count('tr.row') + ';entries=' + count('table.matrix .entry') +
      ';agree=' + count('table.matrix .entry.agrees') + ';cannot=' + count('.cannot-run') +
      ';reports=' + reports + ';header=' + document.querySelector('header .verdict').textContent;
  document.body.appendChild(out);
})();
</script>)JS";

// The suite directory a debate wrote under `store`.
std::string SuiteDirIn(const std::string& store) {
  for (const auto& entry : fs::directory_iterator(store + "/suites/debate")) {
    if (entry.is_directory()) return entry.path().string();
  }
  return "";
}

TEST(DebateIntegrationTest, TwoShardsMergeIntoOneMatrixThatChromiumShows) {
  testing::TempDir dir;
  const std::vector<std::string> common = {
      "debate", "--only", "redis-client-pause-past-lease,redis-power-loss-fsync-always",
      "--repeats", "3", "--seed", "11", "--time-scale", "0.3"};
  std::vector<std::string> shards;
  for (const char* shard : {"1/2", "2/2"}) {
    const std::string store = dir.path() + "/store-" + std::string(1, shard[0]);
    std::vector<std::string> args = common;
    args.insert(args.end(), {"--shard", shard, "--store", store});
    std::string out;
    const int code = testing::RunLocksmith(dir.path(), args, seconds(300), &out);
    EXPECT_NE(out.find("debate matrix: "), std::string::npos) << out;
    shards.push_back(SuiteDirIn(store));
    ASSERT_TRUE(fs::exists(shards.back() + "/debate.json")) << out;
    // Each shard's exit code is its own matrix's: 0 when every scenario it
    // ran agrees, 1 when one disagrees, 2 when none disagrees but one is
    // undecided.
    int shard_agree = 0, shard_disagree = 0, shard_entries = 0;
    for (const auto& e : testing::ReadJson(shards.back() + "/debate.json")["entries"]) {
      ++shard_entries;
      shard_agree += e["agreement"] == "agrees";
      shard_disagree += e["agreement"] == "disagrees";
    }
    EXPECT_EQ(code, shard_agree == shard_entries ? 0 : shard_disagree > 0 ? 1 : 2) << out;
  }
  const std::string merged = dir.path() + "/merged";
  std::string out;
  ASSERT_NE(testing::RunLocksmith(dir.path(), {"merge", merged, shards[0], shards[1]}, seconds(60), &out),
            254)
      << out;
  const int code = testing::RunLocksmith(dir.path(), {"debate", "--from", merged}, seconds(60), &out);

  const nlohmann::json debate = testing::ReadJson(merged + "/debate.json");
  ASSERT_EQ(debate["entries"].size(), 2u) << out;
  EXPECT_EQ(debate["repeats"], 3);
  EXPECT_EQ(debate["time_scale"], 0.3);
  int agree = 0, disagree = 0, invalid_runs = 0;
  for (const auto& e : debate["entries"]) {
    disagree += e["agreement"] == "disagrees";
    EXPECT_EQ(e["runs"], 3) << e.dump();
    EXPECT_EQ(e["planned"], 3) << e.dump();
    agree += e["agreement"] == "agrees";
    invalid_runs += static_cast<int>(e["invalid_runs"].size());
    for (const auto& r : e["invalid_runs"]) {
      EXPECT_TRUE(fs::exists(merged + "/" + r["report"].get<std::string>())) << r.dump();
      EXPECT_NE(r["replay"].get<std::string>().find(" --seed " + r["seed"].dump()),
                std::string::npos);
    }
  }
  // The paused holder is invalid on every seed (the library test's
  // assertion); the fsync-always master loses nothing.
  const auto& pause = debate["entries"][0]["scenario"] == "redis-client-pause-past-lease"
                          ? debate["entries"][0]
                          : debate["entries"][1];
  EXPECT_GE(pause["invalid"].get<int>(), 1) << pause.dump();
  EXPECT_EQ(code, agree == 2 ? 0 : disagree > 0 ? 1 : 2) << out;

  const std::string page = merged + "/debate.html";
  std::string html = testing::ReadText(page);
  const std::regex href("href=\"([^\"#]+)\"");
  for (std::sregex_iterator it(html.begin(), html.end(), href), end; it != end; ++it) {
    EXPECT_TRUE(fs::exists(fs::path(merged) / (*it)[1].str())) << (*it)[1].str();
  }
  const std::string checked = merged + "/checked.html";
  std::ofstream(checked) << html.insert(html.rfind("</body>"), kPageCheck);
  std::string dom, log;
  ASSERT_TRUE(testing::DumpDomInChromium(checked, dir.path(), &dom, &log)) << log;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(dom, m, std::regex("<pre id=\"debate-check\">([^<]*)</pre>")))
      << dom.substr(0, 2000);
  EXPECT_EQ(m[1].str(), "rows=" + std::to_string(debate["shown_rows"].size()) +
                            ";entries=2;agree=" + std::to_string(agree) + ";cannot=" +
                            std::to_string(debate["cannot_run"].size()) + ";reports=" +
                            std::to_string(invalid_runs) + ";header=" + std::to_string(agree) +
                            " agree, " + std::to_string(disagree) + " disagree, " +
                            std::to_string(2 - agree - disagree) + " undecided");
  EXPECT_GE(debate["cannot_run"].size(), 3u);
  fs::create_directories("artifacts");
  EXPECT_TRUE(testing::ScreenshotInChromium(page, dir.path(),
                                            fs::absolute("artifacts/debate-matrix.png").string()));
}

}  // namespace
}  // namespace locksmith
