// The page's scripts and stylesheet (reports/assets/): every script parses
// (`node --check`, from Debian's package nodejs; without it this test fails
// and says so), and the report carries each file as it is.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "reports/html_template.h"
#include "reports/report_assets.h"

namespace locksmith {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<fs::path> Assets(const std::string& extension) {
  std::vector<fs::path> out;
  for (const auto& entry : fs::directory_iterator(LOCKSMITH_REPORT_ASSETS)) {
    if (entry.path().extension() == extension) out.push_back(entry.path());
  }
  return out;
}

bool HaveNode() { return std::system("command -v node >/dev/null 2>&1") == 0; }

// `node --check FILE`'s exit code, its complaint in `output`.
int NodeCheck(const fs::path& file, std::string* output) {
  const fs::path log = fs::temp_directory_path() / ("node-check-" + std::to_string(::getpid()));
  const std::string command =
      "node --check '" + file.string() + "' >'" + log.string() + "' 2>&1";
  const int raw = std::system(command.c_str());
  *output = Slurp(log);
  fs::remove(log);
  return raw;
}

TEST(ReportScriptsTest, EveryScriptParses) {
  ASSERT_TRUE(HaveNode()) << "node is not installed: the report's scripts are checked with "
                             "`node --check` (Debian package nodejs: apt-get install nodejs)";
  const std::vector<fs::path> scripts = Assets(".js");
  ASSERT_GE(scripts.size(), 7u);
  for (const auto& script : scripts) {
    std::string output;
    EXPECT_EQ(NodeCheck(script, &output), 0) << script << ":\n" << output;
  }
}

TEST(ReportScriptsTest, TheCheckCatchesABrokenScript) {
  ASSERT_TRUE(HaveNode()) << "node is not installed (Debian package nodejs)";
  const fs::path broken = fs::temp_directory_path() / "locksmith-broken-script.js";
  std::ofstream(broken) << "function draw() { if (x) {\n";
  std::string output;
  EXPECT_NE(NodeCheck(broken, &output), 0);
  EXPECT_NE(output.find("SyntaxError"), std::string::npos) << output;
  fs::remove(broken);
}

TEST(ReportScriptsTest, ThePageCarriesEveryAssetAsItIs) {
  EXPECT_EQ(HtmlReportCss(), Slurp(fs::path(LOCKSMITH_REPORT_ASSETS) / "report.css"));
  EXPECT_EQ(MainJs(), Slurp(fs::path(LOCKSMITH_REPORT_ASSETS) / "main.js"));
  const std::string& js = HtmlReportJs();
  for (const auto& script : Assets(".js")) {
    EXPECT_NE(js.find(Slurp(script)), std::string::npos) << script << " is not in the page";
  }
  // In one strict-mode function: the scripts' names stay out of the page's globals.
  EXPECT_EQ(js.rfind("(function () {\n'use strict';\n", 0), 0u);
  EXPECT_EQ(js.substr(js.size() - 6), "})();\n");
}

TEST(ReportScriptsTest, LaneColoursComeFromTheDataWhenSafe) {
  const std::vector<FaultLane> lanes = {
      {"test-family", {"test lane", 5, "#123456", "span"}},
      {"bad}name", {"x", 0, "#abcdef", ""}},
      {"x", {"x", 0, "red", ""}},
  };
  EXPECT_EQ(LaneStyles(lanes), ".fam-test-family{background:#123456}");
}

}  // namespace
}  // namespace locksmith
