// libFuzzer target: a run's results.json as `locksmith report RUN_DIR` and a
// suite read it, on arbitrary bytes: parsed (nesting bounded), checked for
// its shape, then written out as the HTML report (of a small fixed history),
// the run's JUnit XML and the suite's row. Bad input may only be an error of
// one line.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/json_input.h"
#include "history/fuzz/fuzz_common.h"
#include "reports/html_report.h"
#include "reports/junit_report.h"
#include "reports/run_results.h"
#include "reports/suite_report.h"

namespace {

// Sixteen ops: a kill window (begun at 0, ended at 14, by the nemesis)
// around lock ops of three processes, so that the op references of the
// seeds' anomalies and fault descriptions (indices 0 to 15) resolve and the
// report draws stories and fault lanes.
const locksmith::History& SampleHistory() {
  static const locksmith::History history = [] {
    using locksmith::Op;
    using locksmith::OpType;
    locksmith::History h;
    for (int64_t i = 0; i < 16; ++i) {
      Op op;
      op.index = i;
      op.time = 1000 * (i + 1);
      op.type = i % 2 ? OpType::kOk : OpType::kInvoke;
      if (i < 2 || i >= 14) {
        op.process = locksmith::kNemesisProcess;
        op.type = i % 2 ? OpType::kInfo : OpType::kInvoke;
        op.f = i < 2 ? "kill" : "restart";
        op.value = {{"node", "n1"}};
        if (i % 2 == 0) op.fault = locksmith::FaultMark{0, "kill", i < 2}.ToJson();
      } else {
        op.process = (i / 2) % 3;
        op.f = (i / 6) % 2 ? "release" : "acquire";
        op.key = "lock-0";
      }
      h.push_back(op);
    }
    return h;
  }();
  return history;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace locksmith;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto results = ParseJsonInput(text);
  if (!results) return CheckErrorLine(results.error());
  if (auto parsed = RunResults::Parse(*results); !parsed) return CheckErrorLine(parsed.error());
  const nlohmann::json config = {{"backend", "redis"}, {"workload", "mutex"}};
  if (auto html = RenderHtmlReport(SampleHistory(), *results, config); !html) {
    return CheckErrorLine(html.error());
  }
  if (auto junit = RenderJunitXml(*results, config, 1.5); !junit) {
    return CheckErrorLine(junit.error());
  }
  const SuiteRun row = SuiteRunFrom(*results, config);
  SuiteRecord suite;
  suite.runs.push_back(row);
  return SuiteSummaryJson(suite).dump().empty() ? CheckErrorLine("") : 0;
}
