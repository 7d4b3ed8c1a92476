#include "reports/fault_tables_html.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

// One window of a family the report knows only from results.json.
History OneWindow() {
  Op begin, end;
  begin.index = 0, begin.time = 1'000'000'000, begin.process = kNemesisProcess;
  begin.type = OpType::kInfo, begin.f = "trip";
  begin.fault = FaultMark{4, "test-family", true}.ToJson();
  end = begin;
  end.index = 1, end.time = 3'000'000'000, end.f = "untrip";
  end.fault = FaultMark{4, "test-family", false}.ToJson();
  return {begin, end};
}

const nlohmann::json kResults = nlohmann::json::parse(R"({"fault_descriptions": {
    "families": {"test-family": {"lane": "test lane", "color": "#123456"}},
    "windows": [{"index": 0, "text": "tripped n1", "effective": false}]}})");

TEST(FaultTablesHtmlTest, AvailabilityPerWindowNamesTheModelsFault) {
  const ReportModel model = ReportModel::Build(OneWindow(), kResults);
  const nlohmann::json stats = nlohmann::json::parse(R"({
      "inside_faults": {"attempts": 4, "ok": 1, "refused": 2},
      "outside_faults": {"attempts": 10, "ok": 10},
      "windows": [{"window": 4, "attempts": 4, "ok": 1, "availability": 0.25},
                  {"window": 9, "family": "other", "begin_ms": 5000}]})");
  const std::string html = AvailabilityHtml(stats, model);
  EXPECT_NE(html.find("1 of 4 acquire attempts got the lock; 2 refused (held by another or not "
                      "sent), 1 in doubt (no answer)"),
            std::string::npos);
  EXPECT_NE(html.find("<span class=\"fam fam-test-family\">test lane</span> tripped n1</td>"
                      "<td class=\"n\">1.000 s</td><td class=\"n\">3.000 s</td>"),
            std::string::npos);
  // A window the model lacks: the checker's figures.
  EXPECT_NE(html.find("<span class=\"fam fam-other\">other</span> other</td>"
                      "<td class=\"n\">5.000 s</td>"),
            std::string::npos);
  EXPECT_EQ(AvailabilityHtml({{"windows", 1}}, model), "");
}

TEST(FaultTablesHtmlTest, EveryFaultByItsLaneAndWhetherItDidAnything) {
  const std::string html = FaultsHtml(ReportModel::Build(OneWindow(), kResults));
  EXPECT_NE(html.find("<tr class=\"muted\"><td><span class=\"fam fam-test-family\">test lane"
                      "</span></td>"),
            std::string::npos);
  EXPECT_NE(html.find("tripped n1 (no effect)"), std::string::npos);
  EXPECT_EQ(FaultsHtml(ReportModel::Build({}, nlohmann::json::object())),
            "<p class=\"muted\">No faults.</p>");
}

}  // namespace
}  // namespace locksmith
