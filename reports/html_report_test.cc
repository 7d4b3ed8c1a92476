#include "reports/html_report.h"

#include <array>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "checker/checker.h"
#include "reports/packed_table.h"

namespace locksmith {
namespace {

const std::string kHostileKey = "</script><script>alert(1)</script>";
const std::string kHostileError = "<!-- & \"quoted\" 'x' \xff bad utf8";

Op MakeOp(int64_t index, int64_t time, int64_t process, OpType type, std::string f,
          std::string key = "", nlohmann::json value = nullptr, std::string error = "") {
  Op op;
  op.index = index, op.time = time, op.process = process, op.type = type;
  op.f = std::move(f), op.key = std::move(key), op.value = std::move(value), op.error = std::move(error);
  return op;
}

// The op begins (or ends) fault window 0 of the kill family.
Op MarkWindow(Op op, bool begins) {
  op.fault = FaultMark{0, "kill", begins}.ToJson();
  return op;
}

// Two clients on lock-0 overlapping while n1 is killed; a third with a hostile
// key and error; a pending op at the end.
History SampleHistory() {
  return {
      MarkWindow(MakeOp(0, 1'000, kNemesisProcess, OpType::kInvoke, "kill", "", {{"node", "n1"}}),
                 true),
      MakeOp(1, 2'000, kNemesisProcess, OpType::kInfo, "kill", "", {{"node", "n1"}}),
      MakeOp(2, 10'000, 0, OpType::kInvoke, "acquire", "lock-0"),
      MakeOp(3, 20'000, 0, OpType::kOk, "acquire", "lock-0", {{"token", "a"}, {"validity_ms", 1}}),
      MakeOp(4, 25'000, 1, OpType::kInvoke, "acquire", "lock-0"),
      MakeOp(5, 30'000, 1, OpType::kOk, "acquire", "lock-0", {{"token", "b"}}),
      MakeOp(6, 40'000, 0, OpType::kInvoke, "release", "lock-0"),
      MakeOp(7, 45'000, 0, OpType::kOk, "release", "lock-0"),
      MakeOp(8, 50'000, 2, OpType::kInvoke, "acquire", kHostileKey),
      MakeOp(9, 60'000, 2, OpType::kInfo, "acquire", kHostileKey, nullptr, kHostileError),
      MarkWindow(
          MakeOp(10, 70'000, kNemesisProcess, OpType::kInvoke, "restart", "", {{"node", "n1"}}),
          false),
      MakeOp(11, 80'000, kNemesisProcess, OpType::kInfo, "restart", "", {{"node", "n1"}}),
      MakeOp(12, 90'000, 1, OpType::kInvoke, "release", "lock-0"),
      MakeOp(13, 95'000, 3, OpType::kInvoke, "acquire", "lock-1", {{"lease_ms", 5}}),
  };
}

// The kill window as the run describes it (nemesis/fault_descriptions.h),
// begun by the op at `begin_index`.
nlohmann::json KillDescription(int64_t begin_index = 0) {
  nlohmann::json described = nlohmann::json::parse(R"({
      "families": {"kill": {"lane": "kill", "order": 10, "color": "#c62828", "client_mark": "",
                            "client_ops": []}},
      "windows": [{"index": 0, "window": 0, "family": "kill", "text": "kill n1",
                   "effective": true, "process": -1}]})");
  described["windows"][0]["index"] = begin_index;
  return described;
}

nlohmann::json SampleResults(const History& h) {
  nlohmann::json double_holder = {
      {"type", "double-holder"},
      {"key", "lock-0"},
      {"class", "unsafe-grant"},
      {"checker", "double-holder"},
      {"holders", {{{"process", 0}, {"acquire", OpRef(h[3])}, {"release", OpRef(h[6])}},
                   {{"process", 1}, {"acquire", OpRef(h[5])}, {"release", nullptr}}}},
      {"overlap_ns", {30'000, 40'000}},
      {"ops", {OpRef(h[3]), OpRef(h[5])}}};
  nlohmann::json future = {{"type", "from-the-future"},
                           {"checker", "double-holder"},
                           {"key", kHostileKey},
                           {"weird_field", kHostileError},
                           {"ops", {OpRef(h[9])}}};
  const nlohmann::json faults = KillDescription();
  return {{"valid", false},
          {"anomalies", {double_holder, future}},
          {"stats",
           {{"double-holder", {{"valid", false}, {"stats", {{"holds", 2}}}}},
            {"linearizable", {{"valid", "unknown"}, {"reason", "budget"}}}}},
          {"reason", "linearizable: budget"},
          {"fault_descriptions", faults}};
}

std::string Render(const History& h, const nlohmann::json& results,
                   const HtmlReportOptions& options = HtmlReportOptions()) {
  auto html = RenderHtmlReport(h, results, {{"backend", "redlock"}, {"seed", 7}}, options);
  EXPECT_TRUE(html.ok()) << (html.ok() ? "" : html.error());
  return html.ok() ? *html : "";
}

nlohmann::json Blob(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"report-data\">";
  size_t start = html.find(open);
  EXPECT_NE(start, std::string::npos);
  start += open.size();
  size_t end = html.find("</script>", start);
  EXPECT_NE(end, std::string::npos);
  return nlohmann::json::parse(html.substr(start, end - start));
}

// The columns of a packed table of the blob (reports/packed_table.h).
std::vector<std::vector<int64_t>> Table(const nlohmann::json& packed,
                                        const std::vector<bool>& is_signed) {
  auto columns = UnpackTable(packed.get<std::string>(), is_signed);
  EXPECT_TRUE(columns.has_value()) << packed;
  return columns ? *columns : std::vector<std::vector<int64_t>>(is_signed.size());
}

void SumDeltas(std::vector<int64_t>* v, int64_t first) {
  for (size_t i = 0; i < v->size(); ++i) (*v)[i] += i == 0 ? first : (*v)[i - 1];
}

// The blob's ops and holds, decoded as the page does.
struct Ops {
  std::vector<int64_t> start, duration, lane, kind, index, completion;
};
Ops OpsOf(const nlohmann::json& data) {
  const auto& ops = data["ops"];
  auto rows = Table(ops["rows"], {false, false, false, false});
  auto ids = Table(ops["ids"], {true, true});
  Ops o{rows[0], rows[1], rows[2], rows[3], ids[0], ids[1]};
  SumDeltas(&o.start, ops["t0"].get<int64_t>());
  SumDeltas(&o.index, 0);
  for (int64_t& d : o.duration) --d;
  EXPECT_EQ(o.start.size(), ops["n"].get<size_t>());
  EXPECT_EQ(o.index.size(), o.start.size());
  return o;
}
struct Holds {
  std::vector<int64_t> key, lane, start, end, lease, acquire, open;
};
Holds HoldsOf(const nlohmann::json& data) {
  const auto& holds = data["holds"];
  auto rows = Table(holds["rows"], {false, false, false, false, true});
  auto ids = Table(holds["ids"], {true, false});
  Holds h{rows[0], rows[1], rows[2], rows[3], rows[4], ids[0], ids[1]};
  SumDeltas(&h.start, holds["t0"].get<int64_t>());
  SumDeltas(&h.lease, 0);
  SumDeltas(&h.acquire, 0);
  for (size_t j = 0; j < h.start.size(); ++j) h.end[j] += h.start[j], h.lease[j] += h.start[j];
  EXPECT_EQ(h.start.size(), holds["n"].get<size_t>());
  return h;
}

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(HtmlReportTest, EmbeddedDataHoldsEveryOp) {
  const History h = SampleHistory();
  const nlohmann::json data = Blob(Render(h, SampleResults(h)));
  const Ops ops = OpsOf(data);
  std::set<int64_t> seen;
  for (size_t r = 0; r < ops.index.size(); ++r) {
    seen.insert(ops.index[r]);
    const Op& invoke = h[static_cast<size_t>(ops.index[r])];
    EXPECT_EQ(ops.start[r], invoke.time);
    EXPECT_EQ(data["fs"][data["kinds"]["f"][static_cast<size_t>(ops.kind[r])].get<size_t>()],
              invoke.f);
    if (ops.completion[r] >= 0) {
      seen.insert(ops.index[r] + ops.completion[r]);
      EXPECT_EQ(ops.start[r] + ops.duration[r],
                h[static_cast<size_t>(ops.index[r] + ops.completion[r])].time);
    } else {
      EXPECT_EQ(ops.duration[r], -1);  // the pending release and acquire
    }
  }
  EXPECT_EQ(seen.size(), h.size());
  EXPECT_EQ(data["t1"], 95'000);
  EXPECT_EQ(data["lanes"][0], "nemesis");
}

TEST(HtmlReportTest, ProcessesWithDisjointLivesShareALane) {
  // p0's last op ends at 45000, p2 lives 50000-60000 (ends info), p3 starts
  // at 95000: all three fit one lane; p1 (until its pending release) overlaps.
  const History h = SampleHistory();
  const nlohmann::json data = Blob(Render(h, SampleResults(h)));
  EXPECT_EQ(data["lanes"], nlohmann::json({"nemesis", "p0 +2", "p1"}));
  EXPECT_EQ(data["segments"]["process"], nlohmann::json({0, 2, 3, 1}));
  EXPECT_EQ(data["segments"]["lane"], nlohmann::json({1, 1, 1, 2}));
  EXPECT_EQ(HoldsOf(data).lane, std::vector<int64_t>({1, 2}));  // p0's hold, then p1's
}

TEST(HtmlReportTest, VerdictAndRunFactsInHeader) {
  const History h = SampleHistory();
  const std::string html = Render(h, SampleResults(h));
  EXPECT_NE(html.find("id=\"verdict\">INVALID</div>"), std::string::npos);
  EXPECT_NE(html.find("<header class=\"run invalid\">"), std::string::npos);
  EXPECT_NE(html.find("<dd>redlock</dd>"), std::string::npos);
  EXPECT_NE(html.find("<dd>7</dd>"), std::string::npos);
  EXPECT_NE(html.find("linearizable: budget"), std::string::npos);

  auto valid = Render(h, {{"valid", true}});
  EXPECT_NE(valid.find("id=\"verdict\">valid</div>"), std::string::npos);
  auto unknown = Render(h, {{"valid", "unknown"}, {"reason", "timed out"}});
  EXPECT_NE(unknown.find("id=\"verdict\">unknown</div>"), std::string::npos);
  EXPECT_NE(unknown.find("timed out"), std::string::npos);
}

TEST(HtmlReportTest, AnomaliesListTheirOps) {
  const History h = SampleHistory();
  const std::string html = Render(h, SampleResults(h));
  EXPECT_NE(html.find("Anomalies (2)"), std::string::npos);
  // Every op the anomaly names, at any depth, is highlighted together.
  EXPECT_NE(html.find("data-ops=\"3,5,6\" data-span=\"30000,40000\""), std::string::npos);
  EXPECT_NE(html.find("data-idx=\"3\""), std::string::npos);
  EXPECT_NE(html.find("data-idx=\"5\""), std::string::npos);
  EXPECT_NE(html.find("data-idx=\"9\""), std::string::npos);
  // Fields other than type/ops/key are shown generically.
  EXPECT_NE(html.find("<th>class</th><td>unsafe-grant</td>"), std::string::npos);
  EXPECT_NE(html.find("<th>weird_field</th>"), std::string::npos);
  EXPECT_NE(html.find(">from-the-future<"), std::string::npos);
}

TEST(HtmlReportTest, AnomaliesReadAsStoriesWithTheFaultThatExplainsThem) {
  const History h = SampleHistory();
  const std::string html = Render(h, SampleResults(h));
  EXPECT_NE(html.find("<div class=\"story\">"), std::string::npos);
  // p1 acquired at 30 µs while p0 held lock-0: together until p0's release.
  EXPECT_NE(html.find("At <b>0.000 s</b> p1 acquired <code>lock-0</code> while p0 held it"),
            std::string::npos);
  EXPECT_NE(html.find("Two holders for <b>10 \xC2\xB5s</b>"), std::string::npos);
  EXPECT_NE(html.find("In force: <span class=\"fam fam-kill\">kill</span> <b>kill n1</b>"),
            std::string::npos);
  EXPECT_NE(html.find("<svg class=\"story-svg\""), std::string::npos);
  // The record stays one click away.
  EXPECT_NE(html.find("<details class=\"record\">"), std::string::npos);
}

TEST(HtmlReportTest, CheckerStatsAndAvailabilityAreTablesForPeople) {
  const History h = SampleHistory();
  nlohmann::json results = SampleResults(h);
  results["stats"]["perf"] = {
      {"valid", true},
      {"stats", {{"latency", {{"acquire", {{"ok", {{"count", 1200}, {"p50_ms", 1.5}}},
                                           {"fail", {{"count", 3}, {"p50_ms", 0.25}}}}}}},
                 {"peak_memory_bytes", 3 << 20}}}};
  const std::string html = Render(h, results);
  EXPECT_NE(html.find("<th>p50</th>"), std::string::npos);  // the unit is the value's
  EXPECT_NE(html.find(">1.5 ms<"), std::string::npos);
  EXPECT_NE(html.find(">1,200<"), std::string::npos);
  EXPECT_NE(html.find("3.0 MiB"), std::string::npos);
  // Availability, computed from the history when results.json has none:
  // the three acquires that completed were invoked inside the kill window.
  EXPECT_NE(html.find("id=\"availability\""), std::string::npos);
  EXPECT_NE(html.find("2 of 3 acquire attempts got the lock"), std::string::npos);
  EXPECT_NE(html.find("got the lock; 0 refused (held by another or not sent), 1 in doubt (no answer)"),
            std::string::npos);
  EXPECT_NE(html.find("0 of 0 acquire attempts"), std::string::npos);
}

// A reader meets the verdict, the anomalies' stories and the timeline
// first; the checkers' figures come after the plots and counts, folded.
TEST(HtmlReportTest, TheVerdictAnomaliesAndTimelineComeFirstTheCheckersStatsFolded) {
  const History h = SampleHistory();
  const std::string html = Render(h, SampleResults(h));
  size_t last = 0;
  for (const char* id : {"id=\"verdict\"", "<section id=\"anomalies\"",
                         "<section id=\"timeline\"", "<section id=\"faults\"",
                         "<section id=\"availability\"", "<section id=\"plots\"",
                         "<section id=\"counts\"", "<section id=\"checkers\"",
                         "<section id=\"config\""}) {
    const size_t at = html.find(id);
    ASSERT_NE(at, std::string::npos) << id;
    EXPECT_GT(at, last) << id;
    last = at;
  }
  const size_t checkers = html.find("<section id=\"checkers\"");
  EXPECT_NE(html.find("<details class=\"stats\"><summary>stats</summary><table class=\"kv\">"
                      "<tr><th>holds</th><td>2</td></tr></table></details>",
                      checkers),
            std::string::npos);
}

// A nonlinearizable anomaly as the linearizability checker writes it: p1's
// acquire cannot follow p0's; the story names both ops, the span from p0's
// invoke to p1's completion, and the kill that began inside it.
TEST(HtmlReportTest, ANonlinearizableStoryNamesItsOpsAndTheFaultsOfItsConflict) {
  const History h = {
      MakeOp(0, 1'000'000'000, 0, OpType::kInvoke, "acquire", "lock-0"),
      MakeOp(1, 1'100'000'000, 0, OpType::kOk, "acquire", "lock-0"),
      MarkWindow(MakeOp(2, 1'500'000'000, kNemesisProcess, OpType::kInvoke, "kill"), true),
      MakeOp(3, 1'600'000'000, kNemesisProcess, OpType::kInfo, "kill", "", {{"node", "n1"}}),
      MakeOp(4, 2'240'000'000, 1, OpType::kInvoke, "acquire", "lock-0"),
      MakeOp(5, 2'307'000'000, 1, OpType::kOk, "acquire", "lock-0"),
      MarkWindow(MakeOp(6, 2'400'000'000, kNemesisProcess, OpType::kInfo, "restart"), false),
  };
  auto linearized = [&](size_t invoke, size_t done) {
    nlohmann::json ref = OpRef(h[done]);
    ref["invoke_index"] = h[invoke].index;
    return ref;
  };
  const nlohmann::json anomaly = {{"type", "nonlinearizable"},
                                  {"checker", "linearizable"},
                                  {"model", "owner-mutex"},
                                  {"key", "lock-0"},
                                  {"op", linearized(4, 5)},
                                  {"ops", {linearized(4, 5)}},
                                  {"prefix", {linearized(0, 1)}},
                                  {"prefix_length", 1},
                                  {"state", "held by process 0"}};
  nlohmann::json results = {{"valid", false}, {"anomalies", {anomaly}}};
  results["fault_descriptions"] = KillDescription(2);
  std::string html = Render(h, results);
  EXPECT_NE(html.find("p1's acquire <a href=\"#timeline\" class=\"opref t-ok\" data-idx=\"5\">"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("(invoked at 2.240 s, ok at 2.307 s) cannot be linearized: after the "
                      "longest legal order found of the ops before it (1 op), <code>lock-0</code> "
                      "is <b>held by process 0</b>. It conflicts with p0's acquire"),
            std::string::npos);
  EXPECT_NE(html.find("(invoked at 1.000 s, ok at 1.100 s). The conflict spans <b>1.000 s "
                      "\xE2\x80\x93 2.307 s</b>"),
            std::string::npos);
  EXPECT_NE(html.find("In effect during the conflict: <span class=\"fam fam-kill\">kill</span> "
                      "<b>kill n1</b> from 1.500 s to 2.400 s."),
            std::string::npos);
  EXPECT_EQ(html.find("No fault was in force at that moment"), std::string::npos);
  EXPECT_NE(html.find("<svg class=\"story-svg\""), std::string::npos);  // both holds, the kill

  // The same conflict before the kill: the kill comes after, and says so.
  nlohmann::json early = anomaly;
  early["op"] = early["ops"][0] = linearized(0, 1);
  early["prefix"] = nlohmann::json::array();
  early["state"] = "free";
  results["anomalies"] = {early};
  html = Render(h, results);
  EXPECT_NE(html.find("No fault was in effect during the conflict or before it. The first fault "
                      "after it, <span class=\"fam fam-kill\">kill</span> <b>kill n1</b> from "
                      "1.500 s to 2.400 s, began 400 ms after the last of these ops completed."),
            std::string::npos);
}

TEST(HtmlReportTest, MalformedAvailabilityStatsStillRender) {
  const History h = SampleHistory();
  nlohmann::json results = SampleResults(h);
  results["stats"]["availability"] = {
      {"valid", true},
      {"stats", {{"inside_faults", {{"attempts", "many"}, {"ok", nullptr}}},
                 {"windows", {{{"window", "zero"}, {"attempts", 3}}, 7}}}}};
  const std::string html = Render(h, results);
  EXPECT_NE(html.find("0 of 0 acquire attempts"), std::string::npos);
}

TEST(HtmlReportTest, HostileStringsAreEscaped) {
  const History h = SampleHistory();
  const std::string html = Render(h, SampleResults(h));
  // Only the report's own two script elements open or close.
  EXPECT_EQ(Count(html, "<script"), 2u);
  EXPECT_EQ(Count(html, "</script>"), 2u);
  EXPECT_EQ(Count(html, "<!--"), 0u);
  EXPECT_NE(html.find("&lt;/script&gt;&lt;script&gt;alert(1)"), std::string::npos);
  EXPECT_NE(html.find("&lt;!-- &amp; &quot;quoted&quot; &#39;x&#39; \xEF\xBF\xBD bad utf8"),
            std::string::npos);
  // The data blob still carries the exact key and the repaired error.
  const nlohmann::json data = Blob(html);
  bool key_found = false;
  for (const auto& k : data["keys"]) key_found |= k == kHostileKey;
  EXPECT_TRUE(key_found);
  ASSERT_EQ(data["errors"].size(), 1u);
  EXPECT_EQ(data["errors"][0], "<!-- & \"quoted\" 'x' \xEF\xBF\xBD bad utf8");
}

TEST(HtmlReportTest, AnomaliesPastTheFirstFewWaitAsEscapedText) {
  const History h = SampleHistory();
  HtmlReportOptions options;
  options.inline_anomalies = 1;
  const std::string html = Render(h, SampleResults(h), options);
  const size_t text = html.find("<script type=\"text/html\" id=\"anomalies-more\">");
  ASSERT_NE(text, std::string::npos);
  // The first in the markup, the second (with the hostile key) in the text,
  // still escaped: the element holds until its own end tag.
  EXPECT_LT(html.find("id=\"anomaly-1\""), text);
  const size_t second = html.find("id=\"anomaly-2\"");
  ASSERT_NE(second, std::string::npos);
  EXPECT_GT(second, text);
  EXPECT_LT(second, html.find("</script>", text));
  EXPECT_NE(html.find("&lt;/script&gt;&lt;script&gt;alert(1)", text), std::string::npos);
  EXPECT_EQ(Count(html, "<script"), 3u);
  EXPECT_EQ(Count(html, "</script>"), 3u);
  EXPECT_NE(html.find("1 more anomalies show with JavaScript."), std::string::npos);
  // By default two anomalies are both in the markup.
  EXPECT_EQ(Render(h, SampleResults(h)).find("id=\"anomalies-more\""), std::string::npos);
}

TEST(HtmlReportTest, FaultsAndHoldsAreRecovered) {
  const History h = SampleHistory();
  const nlohmann::json data = Blob(Render(h, SampleResults(h)));
  ASSERT_EQ(data["faults"].size(), 1u);
  EXPECT_EQ(data["faults"][0]["f"], "kill");
  EXPECT_EQ(data["faults"][0]["family"], "kill");
  EXPECT_EQ(data["faults"][0]["s"], 1'000);
  EXPECT_EQ(data["faults"][0]["e"], 80'000);
  EXPECT_EQ(data["faults"][0]["open"], false);
  // Process 0 held lock-0 [20000, 40000] (lease 1 ms); process 1 from 30000
  // to its release invoke at 90000.
  const Holds holds = HoldsOf(data);
  ASSERT_EQ(holds.start.size(), 2u);
  EXPECT_EQ(holds.start[0], 20'000);
  EXPECT_EQ(holds.end[0], 40'000);
  EXPECT_EQ(holds.lease[0], 20'000 + 1'000'000);
  EXPECT_EQ(holds.acquire[0], 3);
  EXPECT_EQ(holds.start[1], 30'000);
  EXPECT_EQ(holds.end[1], 90'000);
  EXPECT_EQ(holds.lease[1], -1);  // no validity_ms: unknown
  EXPECT_EQ(holds.acquire[1], 5);
  EXPECT_EQ(holds.open, std::vector<int64_t>({0, 0}));
}

// A family the report's code never names, drawn from results.json alone:
// its lane's label and colour, its window's words.
TEST(HtmlReportTest, AnyFamilyIsDrawnFromItsDescription) {
  History h = SampleHistory();
  for (Op& op : h) {
    if (!op.fault.is_null()) {
      op.fault = FaultMark{0, "test-family", op.fault["phase"] == "begin"}.ToJson();
    }
  }
  nlohmann::json results = SampleResults(h);
  results["fault_descriptions"] = nlohmann::json::parse(R"({
      "families": {"test-family": {"lane": "test lane", "order": 1, "color": "#123456",
                                   "client_mark": "tick", "client_ops": ["kill"]}},
      "windows": [{"index": 0, "text": "tripped n1", "effective": true, "process": -1}]})");
  const std::string html = Render(h, results);
  EXPECT_NE(html.find(".fam-test-family{background:#123456}"), std::string::npos);
  EXPECT_NE(html.find("In force: <span class=\"fam fam-test-family\">test lane</span> "
                      "<b>tripped n1</b>"),
            std::string::npos);
  const nlohmann::json data = Blob(html);
  EXPECT_EQ(data["fault_lanes"], nlohmann::json::parse(R"([{"label": "test lane",
      "color": "#123456", "mark": "tick"}])"));
  EXPECT_EQ(data["faults"][0]["label"], "tripped n1");
  EXPECT_EQ(data["fault_fs"], nlohmann::json({"kill"}));
}

// results.json written before it carried fault descriptions: a neutral
// lane and the op's name, or the descriptions the caller makes instead.
TEST(HtmlReportTest, ResultsWithoutDescriptionsStillRender) {
  const History h = SampleHistory();
  nlohmann::json results = SampleResults(h);
  results.erase("fault_descriptions");
  std::string html = Render(h, results);
  EXPECT_NE(html.find("In force: <span class=\"fam fam-kill\">kill</span> <b>kill</b>"),
            std::string::npos);
  EXPECT_EQ(html.find(".fam-kill{"), std::string::npos);
  EXPECT_EQ(Blob(html)["fault_lanes"][0]["color"], "#555");
  HtmlReportOptions options;
  options.describe_faults = [](const History& history) {
    return nlohmann::json{{"families", {{"kill", {{"lane", "kill"}, {"color", "#c62828"}}}}},
                          {"windows", {{{"index", history[0].index}, {"text", "kill n1 now"}}}}};
  };
  html = Render(h, results, options);
  EXPECT_NE(html.find("<b>kill n1 now</b>"), std::string::npos);
  EXPECT_NE(html.find(".fam-kill{background:#c62828}"), std::string::npos);
  // Descriptions results.json has win over the caller's.
  html = Render(h, SampleResults(h), options);
  EXPECT_NE(html.find("<b>kill n1</b>"), std::string::npos);
  EXPECT_EQ(html.find("kill n1 now"), std::string::npos);
}

TEST(HtmlReportTest, ValuesBeyondTheBudgetAreDroppedExceptAnomalyOps) {
  const History h = SampleHistory();
  HtmlReportOptions options;
  options.model.max_values = 0;
  const nlohmann::json data = Blob(Render(h, SampleResults(h), options));
  EXPECT_TRUE(data["values"]["truncated"].get<bool>());
  // Nemesis ops and the anomaly's acquires (rows of indices 2 and 4) keep theirs.
  std::string all;
  for (const auto& t : data["values"]["text"]) all += t.get<std::string>() + "\n";
  EXPECT_NE(all.find("\"token\":\"a\""), std::string::npos);
  EXPECT_NE(all.find("\"token\":\"b\""), std::string::npos);
  EXPECT_NE(all.find("\"node\":\"n1\""), std::string::npos);
  EXPECT_EQ(all.find("lease_ms"), std::string::npos);

  const nlohmann::json everything = Blob(Render(h, SampleResults(h)));
  EXPECT_FALSE(everything["values"]["truncated"].get<bool>());
  EXPECT_EQ(everything["values"]["rows"].size(), 5u);  // 2 acquires, 2 nemesis, lock-1
}

TEST(HtmlReportTest, TheLatencyGridCountsEveryCompletedClientOp) {
  const History h = SampleHistory();
  HtmlReportOptions options;
  options.model.max_raw_scatter_points = 2;  // 4 completed client ops: a grid
  const nlohmann::json sc = Blob(Render(h, SampleResults(h), options))["plots"]["sc"];
  ASSERT_EQ(sc["mode"], "grid");
  const auto cells = Table(sc["cells"], {false, false});
  ASSERT_EQ(cells[0].size(), sc["n"].get<size_t>());
  const int64_t xb = sc["xb"], yb = sc["yb"];
  std::array<int64_t, 3> by_outcome{};
  int64_t cell = 0;
  for (size_t i = 0; i < cells[0].size(); ++i) {
    cell += cells[0][i];
    EXPECT_LT(cell / 3 / yb, xb);
    by_outcome[static_cast<size_t>(cell % 3)] += cells[1][i] + 1;
  }
  // Three acquires and releases ok, one acquire info; two never completed.
  EXPECT_EQ(by_outcome, (std::array<int64_t, 3>{3, 0, 1}));
}

TEST(HtmlReportTest, EmptyHistoryStillRenders) {
  auto html = RenderHtmlReport({}, {{"valid", true}}, nullptr);
  ASSERT_TRUE(html.ok()) << html.error();
  EXPECT_EQ(Blob(*html)["ops"]["n"], 0);
  EXPECT_EQ(OpsOf(Blob(*html)).start.size(), 0u);
  EXPECT_EQ(HoldsOf(Blob(*html)).start.size(), 0u);
}

class RunDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("locksmith_html_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    // On disk, as the recorder writes it: valid UTF-8 (OpToJsonLine throws
    // on anything else).
    std::ofstream out(dir_ / "history.jsonl");
    for (Op op : SampleHistory()) {
      if (!op.error.empty()) op.error = "<!-- & \"quoted\"";
      out << OpToJsonLine(op) << "\n";
    }
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }
  std::filesystem::path dir_;
};

TEST_F(RunDirTest, WritesReportHtml) {
  Write("results.json", SampleResults(SampleHistory())
                            .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  Write("config.json", R"({"test_name":"t1","backend":"redis","workload":"mutex"})");
  auto st = WriteHtmlReport(dir_.string());
  ASSERT_TRUE(st.ok()) << st.error();
  std::ifstream in(dir_ / "report.html");
  std::string html((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(html.find("<h1>t1</h1>"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "report.html.tmp"));
}

TEST_F(RunDirTest, MissingResultsIsAClearError) {
  auto st = WriteHtmlReport(dir_.string());
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("results.json"), std::string::npos) << st.error();
  EXPECT_NE(st.error().find("run the checkers"), std::string::npos) << st.error();
  EXPECT_FALSE(std::filesystem::exists(dir_ / "report.html"));
}

TEST_F(RunDirTest, MalformedResultsIsAClearError) {
  Write("results.json", "{\"valid\": tru");
  auto st = WriteHtmlReport(dir_.string());
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("results.json"), std::string::npos) << st.error();
  EXPECT_NE(st.error().find("not valid JSON"), std::string::npos) << st.error();

  Write("results.json", R"({"valid": "maybe"})");
  st = WriteHtmlReport(dir_.string());
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("\"valid\" must be true, false or \"unknown\""), std::string::npos)
      << st.error();

  Write("results.json", R"({"valid": true, "anomalies": {}})");
  st = WriteHtmlReport(dir_.string());
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("\"anomalies\" must be an array"), std::string::npos) << st.error();
}

TEST_F(RunDirTest, MissingConfigIsFineMalformedIsNot) {
  Write("results.json", R"({"valid": true})");
  auto st = WriteHtmlReport(dir_.string());
  EXPECT_TRUE(st.ok()) << st.error();
  Write("config.json", "{oops");
  st = WriteHtmlReport(dir_.string());
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("config.json"), std::string::npos) << st.error();
}

}  // namespace
}  // namespace locksmith
