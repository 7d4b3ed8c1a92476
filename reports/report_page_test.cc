// report.html as a person reads it, in a real browser (headless Chromium,
// Debian's chromium, installed by scripts/setup.sh --tests): the report of a
// real run (testdata/redis-kill-run: `locksmith run --backend redis
// --nemesis kill --redis-persistence none --hold 200-400 --time-limit 8
// --nemesis-interval 2 --seed 1`, its config.json, results.json and
// history.bin as the run wrote them) is written again by this code and
// loaded. A script added to the page checks, in the DOM the browser built,
// that the verdict, the anomalies' stories and the timeline come before the
// checkers, that the checkers' stats are folded, that each nonlinearizable
// story names its conflict, and that no label / value pair shows a unit its
// label contradicts. No servers: the run's files are the fixture.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "base/testing/file_text.h"
#include "base/testing/temp_dir.h"
#include "reports/html_report.h"

namespace locksmith {
namespace {

namespace fs = std::filesystem;

// Runs in the page after its own markup: whether the verdict, the anomalies
// and the timeline come before the checkers, whether the checkers' stats are
// folded, whether each nonlinearizable story names its conflict, and every
// label / value pair (a table's header and its cells, a key / value row, a
// definition) whose value's unit contradicts its label: a label in ms, ns or
// s showing another unit, a rate ("per s") showing a duration or a percent,
// a share not a percent, a bare fraction with no unit on either side. The
// checker's own record of an anomaly (raw JSON, folded) is left out. Writes
// what it found into <pre id="unit-check">.
constexpr const char* kPageCheck = R"JS(<script>
(function () {
  const problems = [];
  const ids = ['verdict', 'anomalies', 'timeline', 'checkers'];
  for (let i = 0; i + 1 < ids.length; ++i) {
    const a = document.getElementById(ids[i]), b = document.getElementById(ids[i + 1]);
    if (!a || !b) { problems.push('missing #' + (a ? ids[i + 1] : ids[i])); continue; }
    if (!(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING)) {
      problems.push('order: #' + ids[i + 1] + ' comes before #' + ids[i]);
    }
  }
  document.querySelectorAll('#checkers table.kv, #checkers table.stats').forEach(function (t) {
    if (!t.closest('details')) problems.push('checker stats not folded');
  });
  document.querySelectorAll('.anomaly').forEach(function (a) {
    const type = a.querySelector('.atype');
    if (!type || type.textContent !== 'nonlinearizable') return;
    const story = a.querySelector('.story-text');
    const text = story ? story.textContent : '';
    if (!/cannot be linearized/.test(text) || !/conflicts with/.test(text) ||
        !/conflict spans/.test(text)) {
      problems.push('nonlinearizable story without its conflict: ' + text);
    }
  });
  const pairs = [];
  document.querySelectorAll('tr').forEach(function (tr) {
    const cells = tr.children;
    if (cells.length === 2 && cells[0].tagName === 'TH' && cells[1].tagName === 'TD') {
      pairs.push([cells[0].textContent, cells[1]]);
    }
  });
  document.querySelectorAll('table').forEach(function (t) {
    const rows = Array.from(t.rows);
    if (rows.length < 2 || !Array.from(rows[0].cells).every(c => c.tagName === 'TH')) return;
    const head = Array.from(rows[0].cells);
    rows.slice(1).forEach(function (r) {
      Array.from(r.cells).forEach(function (c, i) {
        if (c.tagName === 'TD' && c.colSpan === 1 && head[i]) pairs.push([head[i].textContent, c]);
      });
    });
  });
  document.querySelectorAll('dl div').forEach(function (d) {
    const dt = d.querySelector('dt'), dd = d.querySelector('dd');
    if (dt && dd) pairs.push([dt.textContent, dd]);
  });
  let checked = 0;
  for (const [label, cell] of pairs) {
    if (cell.querySelector('table') || cell.closest('details.record')) continue;
    const l = label.trim().toLowerCase().replace(/_/g, ' ');
    const v = cell.textContent.trim();
    const duration = v.match(/^-?[0-9.,]+ (s|ms|µs|ns)$/);
    const percent = /^-?[0-9.]+%$/.test(v);
    const fraction = /^-?[0-9,]*\.[0-9]+$/.test(v);
    const says = function (why) { problems.push('"' + label.trim() + '" shows "' + v + '": ' + why); };
    ++checked;
    for (const unit of ['ns', 'ms']) {
      if (new RegExp('(^| )' + unit + '$').test(l) && duration && duration[1] !== unit) {
        says('a label in ' + unit);
      }
    }
    if (/(^| )s$/.test(l) && !/per s$/.test(l) && duration && duration[1] !== 's') says('a label in s');
    if (/per s$/.test(l) && (duration || percent)) says('a rate is neither a duration nor a share');
    if (/((^| )(answered|availability)|share|rate)$/.test(l) && v !== '–' && v !== '' &&
        !percent) {
      says('a share is a percent');
    }
    if (fraction && !/(^| )(ms|ns|s|per s)$/.test(l)) says('a bare fraction: in what unit?');
  }
  const out = document.createElement('pre');
  out.id = 'unit-check';
  out.textContent = 'checked ' + checked + '\n' + problems.join('\n');
  document.body.appendChild(out);
})();
</script>)JS";

// The DOM of `file` after headless Chromium loaded it, and Chromium's log.
std::pair<std::string, std::string> Load(const std::string& file, const std::string& work) {
  const std::string dom = work + "/dom.html", log = work + "/chromium.log";
  const std::string command =
      "timeout 120 chromium --headless=new --no-sandbox --disable-gpu --no-first-run "
      "--user-data-dir='" + work + "/profile' --enable-logging=stderr --v=0 --dump-dom 'file://" +
      file + "' >'" + dom + "' 2>'" + log + "'";
  const int raw = std::system(command.c_str());
  EXPECT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 0) << testing::FileText(log);
  return {testing::FileText(dom), testing::FileText(log)};
}

// What kPageCheck found: the pairs it checked, and the problems.
std::pair<int, std::vector<std::string>> PageCheckOf(const std::string& dom) {
  const std::regex found("<pre id=\"unit-check\">checked ([0-9]+)\n([^<]*)</pre>");
  std::smatch m;
  if (!std::regex_search(dom, m, found)) return {-1, {"no unit-check in the page"}};
  std::vector<std::string> problems;
  std::istringstream lines(m[2].str());
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) problems.push_back(line);
  }
  return {std::stoi(m[1].str()), problems};
}

// The fixture's run in a directory of the test's own, its report written again.
std::string ReportOfTheRun(const testing::TempDir& dir) {
  for (const char* file : {"config.json", "results.json", "history.bin"}) {
    fs::copy_file(std::string(LOCKSMITH_REPORT_TESTDATA) + "/redis-kill-run/" + file,
                  dir.path() + "/" + file);
  }
  const Status written = WriteHtmlReport(dir.path());
  EXPECT_TRUE(written.ok()) << written.error();
  return dir.path() + "/report.html";
}

// The kill that restarted Redis empty (4.144 s - 4.277 s) came 38 ms after
// p0's acquire completed, while p13's acquire (invoked at 3.588 s) still
// waited; p13 got lock-1 at 4.272 s while p0 held it. The story names both
// acquires and the kill inside their span, not "no fault".
TEST(ReportPageTest, ANonlinearizableStoryNamesItsOpsAndTheKillInsideTheConflict) {
  testing::TempDir dir;
  const std::string html = testing::FileText(ReportOfTheRun(dir));
  const size_t story = html.find("p0's acquire <a href=\"#timeline\" class=\"opref t-ok\" "
                                 "data-idx=\"180\">");
  ASSERT_NE(story, std::string::npos);
  const std::string text = html.substr(story, html.find("</div>", story) - story);
  EXPECT_NE(text.find("(invoked at 4.106 s, ok at 4.106 s) cannot be linearized: after the "
                      "longest legal order found of the ops before it (27 ops), "
                      "<code>lock-1</code> is <b>held by process 13</b>. It conflicts with "
                      "p13's acquire <a href=\"#timeline\" class=\"opref t-ok\" data-idx=\"194\">"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("(invoked at 3.588 s, ok at 4.272 s). The conflict spans <b>3.588 s "
                      "\xE2\x80\x93 4.272 s</b>"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("In effect during the conflict: <span class=\"fam fam-kill\">kill</span> "
                      "<b>kill n1</b> from 4.144 s to 4.277 s."),
            std::string::npos)
      << text;
}

TEST(ReportPageTest, TheReportLeadsWithItsStoriesAndNoValueContradictsItsLabel) {
  testing::TempDir dir, work;
  const std::string report = testing::FileText(ReportOfTheRun(dir));
  const size_t end = report.rfind("</body>");
  ASSERT_NE(end, std::string::npos);
  const std::string checked = work.path() + "/checked-report.html";
  std::ofstream(checked) << report.substr(0, end) << kPageCheck << report.substr(end);

  const auto [dom, log] = Load(checked, work.path());
  EXPECT_EQ(log.find("Uncaught"), std::string::npos) << log;
  const auto [pairs, problems] = PageCheckOf(dom);
  std::printf("checked %d label / value pairs\n", pairs);
  EXPECT_GT(pairs, 100);  // the run's facts, the checkers' stats, the windows, latency, counts
  for (const auto& problem : problems) ADD_FAILURE() << problem;
}

}  // namespace
}  // namespace locksmith
