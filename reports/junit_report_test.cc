#include "reports/junit_report.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace locksmith {
namespace {

// A small XML well-formedness check (no DTDs, no CDATA; enough for what the
// writer emits): tags balance, attribute values are quoted and hold no '<',
// every '&' starts a known entity, and no raw control characters appear.
::testing::AssertionResult WellFormed(const std::string& xml) {
  std::vector<std::string> stack;
  auto entity_ok = [&](size_t p) {
    for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"}) {
      if (xml.compare(p, std::string(e).size(), e) == 0) return true;
    }
    return false;
  };
  size_t i = 0;
  if (xml.rfind("<?xml", 0) == 0) i = xml.find("?>") + 2;
  while (i < xml.size()) {
    const char c = xml[i];
    if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r') {
      return ::testing::AssertionFailure() << "control character at " << i;
    }
    if (c == '&' && !entity_ok(i)) return ::testing::AssertionFailure() << "bare & at " << i;
    if (c == '>') return ::testing::AssertionFailure() << "bare > in text at " << i;
    if (c != '<') {
      ++i;
      continue;
    }
    const bool closing = xml[i + 1] == '/';
    size_t name_start = i + (closing ? 2 : 1);
    size_t name_end = xml.find_first_of(" />", name_start);
    std::string name = xml.substr(name_start, name_end - name_start);
    size_t p = name_end;
    char quote = 0;
    for (; p < xml.size(); ++p) {
      if (quote) {
        if (xml[p] == quote) quote = 0;
        else if (xml[p] == '<') return ::testing::AssertionFailure() << "< in attribute at " << p;
        else if (xml[p] == '&' && !entity_ok(p)) return ::testing::AssertionFailure() << "bare & in attribute at " << p;
      } else if (xml[p] == '"' || xml[p] == '\'') {
        quote = xml[p];
      } else if (xml[p] == '>') {
        break;
      }
    }
    if (p >= xml.size()) return ::testing::AssertionFailure() << "unterminated tag " << name;
    if (closing) {
      if (stack.empty() || stack.back() != name) {
        return ::testing::AssertionFailure() << "mismatched </" << name << ">";
      }
      stack.pop_back();
    } else if (xml[p - 1] != '/') {
      stack.push_back(name);
    }
    i = p + 1;
  }
  if (!stack.empty()) return ::testing::AssertionFailure() << "unclosed <" << stack.back() << ">";
  return ::testing::AssertionSuccess();
}

nlohmann::json OpRefJson(int64_t index, const std::string& key) {
  return {{"index", index}, {"process", 1}, {"time", 5}, {"type", "ok"}, {"f", "acquire"}, {"key", key}};
}

nlohmann::json CompositeResults() {
  const std::string hostile = "</failure><x a=\"1\"> & \x01\x1f\xff";
  return {{"valid", false},
          {"anomalies",
           {{{"type", "double-holder"},
             {"checker", "double-holder"},
             {"key", hostile},
             {"class", "unsafe-grant"},
             {"ops", {OpRefJson(12, hostile), OpRefJson(40, hostile)}}},
            {{"type", "double-holder"},
             {"checker", "double-holder"},
             {"key", "lock-1"},
             {"ops", {OpRefJson(7, "lock-1")}}}}},
          {"stats",
           {{"double-holder", {{"valid", false}, {"stats", {{"holds", 9}}}}},
            {"linearizable", {{"valid", "unknown"}, {"reason", "budget <exhausted> & gave up"}}},
            {"perf", {{"valid", true}}}}},
          {"reason", "linearizable: budget"}};
}

TEST(JunitReportTest, OneTestcasePerChecker) {
  auto xml = RenderJunitXml(CompositeResults(),
                            {{"test_name", "nightly <redlock>"}, {"backend", "redlock"},
                             {"workload", "mutex"}, {"seed", 9}},
                            61.5);
  ASSERT_TRUE(xml.ok()) << xml.error();
  EXPECT_TRUE(WellFormed(*xml)) << *xml;
  EXPECT_NE(xml->find("<testsuite name=\"nightly &lt;redlock&gt;\" tests=\"3\" failures=\"1\" "
                      "errors=\"1\" skipped=\"0\" time=\"61.500\">"),
            std::string::npos)
      << *xml;
  EXPECT_NE(xml->find("<testcase classname=\"locksmith.redlock.mutex\" name=\"perf\" time=\"0\"/>"),
            std::string::npos)
      << *xml;
  EXPECT_NE(xml->find("<failure message=\"2 anomalies: double-holder x2\" type=\"double-holder\">"),
            std::string::npos)
      << *xml;
  EXPECT_NE(xml->find("<error message=\"unknown: budget &lt;exhausted&gt; &amp; gave up\""),
            std::string::npos)
      << *xml;
  EXPECT_NE(xml->find("<property name=\"seed\" value=\"9\"/>"), std::string::npos);
}

// The fault ledger is a case of its own: an error when the run did not do
// what it was asked, though every checker passed.
TEST(JunitReportTest, TheFaultLedgerIsATestcase) {
  nlohmann::json results = {
      {"valid", "unknown"},
      {"reason", "step 1 (kill n1 after acquire of x) never fired"},
      {"unfulfilled", "step 1 (kill n1 after acquire of x) never fired"},
      {"stats", {{"double-holder", {{"valid", true}}}}},
      {"faults", {{"families", {{{"family", "kill"}, {"planned", 1}, {"observed", 0}}}}}}};
  auto xml = RenderJunitXml(results, {{"backend", "redis"}, {"workload", "mutex"}}, 3);
  ASSERT_TRUE(xml.ok()) << xml.error();
  EXPECT_TRUE(WellFormed(*xml)) << *xml;
  EXPECT_NE(xml->find("tests=\"2\" failures=\"0\" errors=\"1\""), std::string::npos) << *xml;
  EXPECT_NE(xml->find("<testcase classname=\"locksmith.redis.mutex\" name=\"faults\" "
                      "time=\"0\">\n      <error message=\"unknown: step 1 (kill n1 after acquire "
                      "of x) never fired\" type=\"unknown\">kill: 1 planned, 0 observed\n</error>"),
            std::string::npos)
      << *xml;
  results.erase("unfulfilled");
  results["valid"] = true;
  xml = RenderJunitXml(results, {{"backend", "redis"}, {"workload", "mutex"}}, 3);
  ASSERT_TRUE(xml.ok()) << xml.error();
  EXPECT_NE(xml->find("tests=\"2\" failures=\"0\" errors=\"0\""), std::string::npos) << *xml;
  EXPECT_NE(xml->find("name=\"faults\" time=\"0\"/>"), std::string::npos) << *xml;
}

TEST(JunitReportTest, FailureBodyListsAnomaliesEscaped) {
  auto xml = RenderJunitXml(CompositeResults(), nullptr);
  ASSERT_TRUE(xml.ok()) << xml.error();
  EXPECT_TRUE(WellFormed(*xml)) << *xml;
  EXPECT_NE(xml->find("#1 double-holder key=&lt;/failure&gt;&lt;x a=&quot;1&quot;&gt; &amp; "
                      "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD ops=#12,#40 class=unsafe-grant"),
            std::string::npos)
      << *xml;
  EXPECT_NE(xml->find("#2 double-holder key=lock-1 ops=#7"), std::string::npos) << *xml;
}

TEST(JunitReportTest, SingleCheckerResults) {
  auto xml = RenderJunitXml({{"valid", true}, {"stats", {{"holds", 3}}}}, nullptr);
  ASSERT_TRUE(xml.ok()) << xml.error();
  EXPECT_TRUE(WellFormed(*xml)) << *xml;
  EXPECT_NE(xml->find("name=\"results\" time=\"0\"/>"), std::string::npos) << *xml;
  EXPECT_NE(xml->find("failures=\"0\""), std::string::npos);

  xml = RenderJunitXml({{"valid", false}}, nullptr);
  ASSERT_TRUE(xml.ok()) << xml.error();
  EXPECT_NE(xml->find("message=\"invalid (no anomalies recorded)\""), std::string::npos) << *xml;
}

TEST(JunitReportTest, AnInterruptedRunSaysSoInEveryTestcase) {
  nlohmann::json results = CompositeResults();
  results["interrupted"] = true;
  results["interruption"] = {{"signal", "SIGINT"},
                             {"message", "by SIGINT after 4.2 s of the 60.0 s workload; <ops>"}};
  auto xml = RenderJunitXml(results, nullptr);
  ASSERT_TRUE(xml.ok()) << xml.error();
  EXPECT_TRUE(WellFormed(*xml)) << *xml;
  EXPECT_NE(xml->find("<property name=\"interrupted\" value=\"by SIGINT after 4.2 s of the 60.0 s "
                      "workload; &lt;ops&gt;\"/>"),
            std::string::npos)
      << *xml;
  const std::string line =
      "<system-out>interrupted: by SIGINT after 4.2 s of the 60.0 s workload; &lt;ops&gt;"
      "</system-out>";
  // One per test case, passing ones included (perf is valid).
  size_t count = 0;
  for (size_t at = xml->find(line); at != std::string::npos; at = xml->find(line, at + 1)) ++count;
  EXPECT_EQ(count, 3u) << *xml;
  EXPECT_NE(xml->find("name=\"perf\" time=\"0\">\n      " + line + "\n    </testcase>"),
            std::string::npos)
      << *xml;

  // Without a message (an older results.json): still said, generically.
  results.erase("interruption");
  xml = RenderJunitXml(results, nullptr);
  ASSERT_TRUE(xml.ok()) << xml.error();
  EXPECT_NE(xml->find("<system-out>interrupted: the run was interrupted"), std::string::npos)
      << *xml;
  // Not interrupted: no trace of it.
  results["interrupted"] = false;
  xml = RenderJunitXml(results, nullptr);
  ASSERT_TRUE(xml.ok()) << xml.error();
  EXPECT_EQ(xml->find("interrupted"), std::string::npos) << *xml;
  EXPECT_EQ(xml->find("system-out"), std::string::npos) << *xml;
}

TEST(JunitReportTest, MalformedResultsAreErrors) {
  EXPECT_FALSE(RenderJunitXml(nlohmann::json::array(), nullptr).ok());
  EXPECT_FALSE(RenderJunitXml({{"anomalies", nlohmann::json::array()}}, nullptr).ok());
  auto bad = RenderJunitXml({{"valid", 1}}, nullptr);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("\"valid\""), std::string::npos) << bad.error();
}

TEST(JunitReportTest, WritesFromRunDir) {
  auto dir = std::filesystem::temp_directory_path() /
             ("locksmith_junit_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto st = WriteJunitXml(dir.string());
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("results.json"), std::string::npos) << st.error();

  std::ofstream(dir / "results.json")
      << CompositeResults().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::ofstream(dir / "history.jsonl")
      << R"({"index":0,"time":1000,"process":0,"type":"invoke","f":"acquire","key":"k"})" "\n"
      << R"({"index":1,"time":2500000000,"process":0,"type":"ok","f":"acquire","key":"k"})" "\n";
  st = WriteJunitXml(dir.string());
  ASSERT_TRUE(st.ok()) << st.error();
  std::ifstream in(dir / "junit.xml");
  std::string xml((std::istreambuf_iterator<char>(in)), {});
  EXPECT_TRUE(WellFormed(xml)) << xml;
  EXPECT_NE(xml.find("time=\"2.500\""), std::string::npos) << xml;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace locksmith
