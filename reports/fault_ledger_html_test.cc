#include "reports/fault_ledger_html.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

TEST(FaultLedgerHtmlTest, ShowsEveryFamilyAndStepFromTheDataAlone) {
  const nlohmann::json faults = nlohmann::json::parse(R"({
    "families": [{"family": "meteor", "planned": 2, "fired": 2, "applied": 2, "healed": 1,
                  "observed": 1}],
    "rows": [{"step": 1, "phase": "begin", "what": "meteor <n1> at 300 ms", "fired": true,
              "applied": true, "healed": true, "observed": true, "at_s": 0.3012,
              "done": "meteor n1"},
             {"step": 2, "phase": "begin", "what": "meteor n2 after acquire of x",
              "fired": false, "applied": false, "healed": false, "observed": false}],
    "unfulfilled": "step 2 (meteor n2 after acquire of x) never fired"})");
  const std::string html = FaultLedgerHtml(faults);
  // A family the reports never heard of, drawn like any other.
  EXPECT_NE(html.find("<td>meteor</td><td class=\"n\">2</td><td class=\"n\">2</td>"
                      "<td class=\"n\">2</td><td class=\"n\">1</td><td class=\"n bad\">1</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("meteor &lt;n1&gt; at 300 ms"), std::string::npos) << html;
  EXPECT_NE(html.find("<td class=\"n\">0.301 s</td><td>meteor n1</td>"), std::string::npos)
      << html;
  EXPECT_NE(html.find("Not done as asked: step 2 (meteor n2 after acquire of x) never fired"),
            std::string::npos)
      << html;
  EXPECT_EQ(FaultLedgerHtml(nullptr), "");
  EXPECT_EQ(FaultLedgerHtml({{"families", nlohmann::json::array()}, {"rows", {}}}), "");
}


// A family whose faults stall lock holders says how many of its observed
// stalls outlived their lease, in a column of its own; a step says it too.
TEST(FaultLedgerHtmlTest, StallsPastTheLeaseAreCountedApart) {
  nlohmann::json faults = nlohmann::json::parse(R"({
    "families": [{"family": "client-pause", "planned": 4, "fired": 4, "applied": 4,
                  "healed": 4, "observed": 4, "past_lease": 1},
                 {"family": "kill", "planned": 1, "fired": 1, "applied": 1, "healed": 1,
                  "observed": 1}],
    "rows": [{"step": 1, "phase": "begin", "what": "client-pause", "fired": true,
              "applied": true, "healed": true, "observed": true, "past_lease": true,
              "done": "client-pause p1 holding lock-0 for 2.000 s"}]})");
  const std::string html = FaultLedgerHtml(faults);
  EXPECT_NE(html.find("<th>observed</th><th>past lease</th>"), std::string::npos) << html;
  EXPECT_NE(html.find("<td class=\"n\">4</td><td class=\"n\">1 of 4</td></tr>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<td class=\"n\">1</td><td class=\"n\"></td></tr>"), std::string::npos)
      << "a family that stalls no holder: an empty cell\n"
      << html;
  EXPECT_NE(html.find("for 2.000 s, past its lease</td>"), std::string::npos) << html;
  // No family that stalls holders: no such column.
  faults["families"].erase(0);
  EXPECT_EQ(FaultLedgerHtml(faults).find("past lease"), std::string::npos);
}

}  // namespace
}  // namespace locksmith
